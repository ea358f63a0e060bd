// `crm-proxy jobs list` and `crm-proxy jobs watch ID`, on a store a service would share.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { withCliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { openStore } from '../../src/store/index.ts';
import { waitFor } from '../helpers/wait.ts';
import { cleanEnv, runCli } from './run-cli.ts';

const iso = () => new Date().toISOString();

test('jobs list shows the jobs; jobs watch draws a bar that follows the job and ends with its counts', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'crm-proxy-cli-jobs-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const env = cleanEnv({ CRM_PROXY_DATA_DIR: dataDir });
  const store = await openStore({ dataDir });
  t.after(() => store.close());
  const job = await store.jobs.insert({
    id: 'job_cli0000000000000000000000000001',
    tokenId: 'tok_1',
    connectionId: 'conn_1',
    requestId: null,
    operation: 'insert',
    objectName: 'Account',
    input: '{}',
    total: 1000,
    now: iso(),
  });
  await store.jobs.claim(job.id, 'inst_a', iso(), new Date(Date.now() + 60_000).toISOString());

  const listed = await runCli(['jobs', 'list'], env);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /job_cli0+1\s+running\s+insert\s+Account\s+0\/1000/);
  const json = await runCli(['jobs', 'list', '--json'], env);
  assert.equal((JSON.parse(json.stdout) as Array<{ id: string }>)[0]?.id, job.id);

  // In-process, with streams the test can read while the command runs.
  const out = { stdout: '', stderr: '' };
  const io = {
    env,
    stdin: Readable.from(['']),
    stdout: { write: (text: string) => (out.stdout += text) },
    stderr: { write: (text: string) => (out.stderr += text) },
  };
  const watching = withCliIo(io, () => main(['jobs', 'watch', job.id, '--interval-ms', '20']));
  await store.jobs.progress(
    job.id,
    'inst_a',
    { processed: 400, succeeded: 390, failed: 10 },
    'collections',
    iso(),
  );
  await waitFor('the bar to show the progress', () => out.stderr.includes('400/1000 records'));
  await store.jobs.finish(
    job.id,
    'inst_a',
    {
      state: 'completed',
      counts: { processed: 1000, succeeded: 990, failed: 10 },
      iface: 'collections',
      error: null,
    },
    iso(),
  );
  const watched = { code: await watching, ...out };
  assert.equal(watched.code, 0, watched.stderr);
  assert.match(watched.stderr, /400\/1000 records \| 390 ok, 10 failed \| running/);
  assert.match(watched.stderr, /1000\/1000 records \| 990 ok, 10 failed \| completed/);
  assert.match(
    watched.stdout,
    /^job_cli0+1 completed in [0-9.]+ s: 1000\/1000 processed, 990 succeeded, 10 failed \(collections\)\n$/,
  );

  const missing = await runCli(['jobs', 'watch', 'job_nope'], env);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no job job_nope/);
});
