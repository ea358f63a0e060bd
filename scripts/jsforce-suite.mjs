#!/usr/bin/env node
// Runs jsforce's own test suite, unchanged, against the Salesforce sandbox and prints per-file figures:
//   node scripts/jsforce-suite.mjs <path to a jsforce checkout> [--only bulk2,query] [--keep-logs]
//
// The checkout is jsforce's public repository at the release this project pins (package.json's
// devDependency `jsforce`, tag 3.10.16), with its own dependencies installed and its Node build made:
//   git clone https://github.com/jsforce/jsforce <dir> && cd <dir> && git checkout 3.10.16
//   PUPPETEER_SKIP_DOWNLOAD=1 npm ci --ignore-scripts && npx tsc -p .
// Nothing of jsforce is copied into this repository. The script starts `crm-proxy sandbox salesforce`
// on a free port with a temporary data directory, prepares the org as jsforce's own
// `scripts/org-setup.mjs` prepares a scratch org (the custom objects `BigTable__c` and
// `UpsertTable__c` with its external id `ExtId__c`, made through the Tooling API as the metadata
// deploy would; five Bulk upserts on `Id` of 5001 `BigTable__c` rows), then runs jest in the
// checkout with the environment jsforce's `test/config` reads (SF_LOGIN_URL, SF_ACCESS_TOKEN,
// SF_USERNAME, SF_PASSWORD). A failing test that needs an API the sandbox does not emulate by
// design (listed in BY_DESIGN below, each with its reason) is counted as such, not as a failure.
// Exit code 1 when any other test fails.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startSalesforceSandboxProcess } from './salesforce-sandbox-process.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { only: { type: 'string' }, 'keep-logs': { type: 'boolean' } },
});
const checkout = positionals[0] === undefined ? '' : resolve(positionals[0]);
if (checkout === '' || !existsSync(join(checkout, 'test', 'config', 'index.ts'))) {
  console.error('usage: node scripts/jsforce-suite.mjs <path to a jsforce checkout> [--only file,file]');
  console.error('the path must be a clone of github.com/jsforce/jsforce with test/config/index.ts');
  process.exit(2);
}
if (!existsSync(join(checkout, 'lib', 'index.js'))) {
  console.error(`${checkout}/lib is missing: build jsforce first (npx tsc -p . in the checkout)`);
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'jsforce-suite-'));
const API = 'v62.0';

/**
 * Tests that need an API the sandbox does not emulate by design (docs/sandboxes.md lists them):
 * file → [test name pattern, reason]. A file mapped to a single `.*` entry is wholly out of scope.
 */
const BY_DESIGN = {
  'apex.test.ts': [[/.*/, 'Apex REST (/services/apexrest) runs Apex classes']],
  'metadata.test.ts': [[/.*/, 'Metadata API (SOAP and deploy/retrieve)']],
  'chatter.test.ts': [[/.*/, 'Chatter / Connect REST API']],
  'quick-action.test.ts': [[/.*/, 'Quick Actions API']],
  'analytics.test.ts': [[/.*/, 'Analytics API (reports and dashboards)']],
  'streaming.test.ts': [[/.*/, 'Streaming API (CometD, PushTopics, generic streaming)']],
  'soap.test.ts': [[/.*/, 'SOAP API beyond login()/logout()']],
  'process.test.ts': [
    [
      /submit approval|approve requested|reject approval/i,
      'an approval process (deployed as metadata; the org has none, so Submit finds no process)',
    ],
  ],
  'connection-meta.test.ts': [
    [/identity/i, "the identity URL's https scheme: the sandbox serves http on loopback"],
  ],
  'tooling.test.ts': [
    [
      /tooling sobject|anonymous apex|run tests|completions/i,
      'Apex (ApexClass records, test runs, anonymous Apex)',
    ],
    [/debuglevel/i, 'Apex debug log levels (the DebugLevel Tooling object)'],
    [/static resource/i, 'Metadata (StaticResource, a metadata component)'],
  ],
};

function byDesign(file, title) {
  for (const [pattern, reason] of BY_DESIGN[file] ?? []) if (pattern.test(title)) return reason;
  return null;
}

/**
 * One REST call to the sandbox with the bootstrap token; throws on an unexpected status, and names
 * the call and the transport error (ECONNRESET, EPIPE) when no answer came.
 */
async function call(sb, method, path, body, contentType = 'application/json') {
  let res;
  try {
    res = await fetch(`${sb.url}/services/data/${API}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sb.token}`,
        ...(body === undefined ? {} : { 'content-type': contentType }),
      },
      body: body === undefined ? undefined : contentType === 'application/json' ? JSON.stringify(body) : body,
    });
  } catch (e) {
    const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message;
    throw new Error(`${method} ${path}: no answer (${cause})`, { cause: e });
  }
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 400)}`);
  return text === '' ? null : JSON.parse(text);
}

/** What jsforce's org-setup deploys (test/package/JSforceTestSuite) and loads, in the sandbox's APIs. */
async function prepareOrg(sb) {
  await call(sb, 'POST', '/tooling/sobjects/CustomObject', {
    FullName: 'BigTable__c',
    Metadata: {
      label: 'BigTable',
      pluralLabel: 'BigTable',
      nameField: { label: '#', type: 'AutoNumber', displayFormat: '{00000000}' },
      deploymentStatus: 'Deployed',
      sharingModel: 'ReadWrite',
    },
  });
  await call(sb, 'POST', '/tooling/sobjects/CustomObject', {
    FullName: 'UpsertTable__c',
    Metadata: {
      label: 'UpsertTable',
      pluralLabel: 'UpsertTable',
      nameField: { label: 'Name', type: 'Text' },
      deploymentStatus: 'Deployed',
      sharingModel: 'ReadWrite',
    },
  });
  await call(sb, 'POST', '/tooling/sobjects/CustomField', {
    FullName: 'UpsertTable__c.ExtId__c',
    Metadata: { label: 'ExtId', type: 'Text', length: 50, externalId: true, required: false, unique: false },
  });
  const soql = "SELECT Id FROM User WHERE Username = 'sandbox.admin@crm-proxy.sandbox'";
  const userId = (await call(sb, 'GET', `/query?q=${encodeURIComponent(soql)}`)).records[0].Id;
  // org-setup.mjs: `sf force data bulk upsert --external-id Id` of a 5001-row OwnerId file, five times.
  const csv = `OwnerId\n${`${userId}\n`.repeat(5001)}`;
  for (let i = 0; i < 5; i++) {
    const job = await call(sb, 'POST', '/jobs/ingest', {
      object: 'BigTable__c',
      operation: 'upsert',
      externalIdFieldName: 'Id',
      contentType: 'CSV',
      lineEnding: 'LF',
    });
    await call(sb, 'PUT', `/jobs/ingest/${job.id}/batches`, csv, 'text/csv');
    await call(sb, 'PATCH', `/jobs/ingest/${job.id}`, { state: 'UploadComplete' });
    for (;;) {
      const info = await call(sb, 'GET', `/jobs/ingest/${job.id}`);
      if (info.state === 'JobComplete') {
        if (info.numberRecordsFailed !== 0) throw new Error(`BigTable__c load: ${JSON.stringify(info)}`);
        break;
      }
      if (info.state === 'Failed' || info.state === 'Aborted') throw new Error(JSON.stringify(info));
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * jest in the checkout on one test file (the suite shares one org, so files run one after another,
 * and a file whose unhandled rejection ends jest costs only its own figures); JSON report to a file.
 */
function runJest(sb, file) {
  const report = join(work, `${file}.json`);
  const args = [
    join(checkout, 'node_modules', 'jest', 'bin', 'jest.js'),
    '--forceExit',
    '--runInBand',
    '--json',
    `--outputFile=${report}`,
    `test/${file}`,
  ];
  const env = {
    ...process.env,
    SF_LOGIN_URL: sb.url,
    SF_ACCESS_TOKEN: sb.token,
    SF_USERNAME: 'sandbox.admin@crm-proxy.sandbox',
    SF_PASSWORD: 'sandbox-password',
  };
  delete env.CI;
  delete env.DEBUG;
  return new Promise((resolve_) => {
    const child = spawn(process.execPath, args, { cwd: checkout, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
      if (values['keep-logs'] === true) process.stderr.write(d);
    });
    child.on('close', () => {
      const parsed = existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : null;
      resolve_({ suite: parsed?.testResults?.[0] ?? null, stderr });
    });
  });
}

const only = values.only?.split(',').map((f) => (f.endsWith('.test.ts') ? f : `${f}.test.ts`));
let stopping = false;
// Once started, the sandbox runs until the script stops it: an earlier exit is a crash, which every
// later call would only see as a reset connection.
const sandbox = await startSalesforceSandboxProcess(join(work, 'data'), (how) => {
  if (!stopping) console.error(`the sandbox exited (${how}) while the suite ran`);
});
let failed = 0;
try {
  console.log(
    `# jsforce ${JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')).version} at ${checkout}`,
  );
  console.log(`# sandbox ${sandbox.url}`);
  await prepareOrg(sandbox);
  const files =
    only ??
    readdirSync(join(checkout, 'test'))
      .filter((f) => f.endsWith('.test.ts'))
      .sort();
  const rows = [];
  const failures = [];
  const designed = [];
  for (const file of files) {
    const { suite, stderr } = await runJest(sandbox, file);
    const row = { file, passed: 0, failed: 0, byDesign: 0, skipped: 0 };
    for (const t of suite?.assertionResults ?? []) {
      const title = [...t.ancestorTitles, t.title].join(' > ');
      if (t.status === 'passed') row.passed++;
      else if (t.status === 'pending' || t.status === 'skipped' || t.status === 'todo') row.skipped++;
      else {
        const reason = byDesign(file, title);
        if (reason === null) {
          row.failed++;
          failures.push({ file, title, message: (t.failureMessages ?? []).join('\n').slice(0, 1500) });
        } else {
          row.byDesign++;
          designed.push({ file, title, reason });
        }
      }
    }
    if (suite === null || (suite.assertionResults.length === 0 && suite.status === 'failed')) {
      const reason = byDesign(file, '');
      if (reason === null) {
        row.failed++;
        const message = suite?.message ?? stderr.slice(-1500);
        failures.push({ file, title: '(the file did not run to its end)', message });
      } else {
        row.byDesign++;
        designed.push({ file, title: '(the whole file)', reason });
      }
    }
    console.log(
      `${file}: ${row.passed} passed, ${row.failed} failed, ${row.byDesign} by design, ${row.skipped} skipped`,
    );
    rows.push(row);
  }
  const total = rows.reduce(
    (s, r) => ({
      passed: s.passed + r.passed,
      failed: s.failed + r.failed,
      byDesign: s.byDesign + r.byDesign,
      skipped: s.skipped + r.skipped,
    }),
    { passed: 0, failed: 0, byDesign: 0, skipped: 0 },
  );
  console.log('\n| file | passed | failed | failed by design | skipped in jsforce |');
  console.log('|---|---:|---:|---:|---:|');
  for (const r of rows)
    console.log(`| ${r.file} | ${r.passed} | ${r.failed} | ${r.byDesign} | ${r.skipped} |`);
  console.log(`| **total** | ${total.passed} | ${total.failed} | ${total.byDesign} | ${total.skipped} |`);
  if (designed.length > 0) {
    console.log('\nFailing by design (APIs the sandbox does not emulate):');
    for (const d of designed) console.log(`- ${d.file}: ${d.title} — ${d.reason}`);
  }
  if (failures.length > 0) {
    console.log('\nFailures:');
    for (const f of failures) console.log(`\n## ${f.file}: ${f.title}\n${f.message}`);
  }
  failed = total.failed;
} finally {
  stopping = true;
  sandbox.child.kill();
  if (values['keep-logs'] !== true) rmSync(work, { recursive: true, force: true });
}
process.exit(failed > 0 ? 1 : 0);
