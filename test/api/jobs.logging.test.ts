// Every CRM call made for a request or a job is logged with the request id and the job id.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { startStack } from '../helpers/stack.ts';

test('CRM calls of a job carry its jobId and the requestId of the request that started it', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  const s = await startStack(t, { overrides: { logger: pino({ level: 'debug' }, sink) } });
  const keyed = await s.api('/v1/object/insert/Account', {
    body: { data: [{ Name: 'Logged-1' }] },
    headers: { 'idempotency-key': 'log-1' },
  });
  assert.equal(keyed.status, 200);
  const jobId = keyed.headers.get('x-crm-proxy-job-id');
  const requestId = keyed.headers.get('x-request-id');
  const calls = lines.filter((l) => l['component'] === 'outbound' && l['jobId'] === jobId);
  assert.ok(calls.length >= 1, 'the job’s CRM calls are logged with its id');
  assert.ok(calls.every((l) => l['requestId'] === requestId));
  assert.ok(lines.some((l) => l['msg'] === 'job finished' && l['jobId'] === jobId));

  // A direct (small, keyless) write: its calls carry the request id.
  const direct = await s.api('/v1/object/insert/Account', { body: { data: [{ Name: 'Logged-2' }] } });
  const directId = direct.headers.get('x-request-id');
  const directCalls = lines.filter((l) => l['component'] === 'outbound' && l['requestId'] === directId);
  assert.ok(directCalls.length >= 1);
  assert.ok(directCalls.every((l) => l['jobId'] === undefined));
});
