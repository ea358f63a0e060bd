#!/usr/bin/env node
// Runs the Salesforce CLI (`sf`) against the Salesforce sandbox and checks each answer:
//   node scripts/sf-cli-check.mjs [--sf /path/to/sf]      (default: `sf` on PATH, or $SF_CLI)
// It starts `crm-proxy sandbox salesforce` on a free port with a temporary data directory, gives
// the CLI a temporary HOME (so no real org's auth files are read or written), runs the commands
// below and exits 1 if any check fails. The CLI is not a dependency of this repository (it is
// large): install it anywhere, e.g. `npm install --prefix /tmp/sf @salesforce/cli@2.138.0`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startSalesforceSandboxProcess } from './salesforce-sandbox-process.mjs';

const { values } = parseArgs({ options: { sf: { type: 'string' } } });
const SF = values.sf ?? process.env.SF_CLI ?? 'sf';
const work = mkdtempSync(join(tmpdir(), 'sf-cli-check-'));
const ALIAS = 'crm-proxy-sandbox';

/** Runs a command to its end; resolves with its exit code and output. */
function exec(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const sfEnv = (token) => ({
  ...process.env,
  HOME: join(work, 'home'),
  SF_ACCESS_TOKEN: token,
  SF_DISABLE_TELEMETRY: 'true',
  SF_AUTOUPDATE_DISABLE: 'true',
  SF_SKIP_NEW_VERSION_CHECK: 'true',
  SF_USE_GENERIC_UNIX_KEYCHAIN: 'true',
  SF_DISABLE_LOG_FILE: 'true',
  NO_COLOR: '1',
});

const results = [];
let env;

/** One `sf … --json` call; the check gets the parsed `result` and throws (assert-style) when wrong. */
async function check(name, args, verify) {
  const r = await exec(SF, [...args, '--json'], env);
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = null;
  }
  try {
    if (json === null) throw new Error(`no JSON answer (exit ${r.code}): ${r.stderr.slice(0, 800)}`);
    if (json.status !== 0) throw new Error(`status ${json.status}: ${json.name ?? ''} ${json.message ?? ''}`);
    await verify(json.result);
    results.push({ name, ok: true });
    console.log(`ok    ${name}`);
  } catch (e) {
    results.push({ name, ok: false });
    console.log(`FAIL  ${name}\n      sf ${args.join(' ')}\n      ${e.message.replaceAll('\n', '\n      ')}`);
  }
  return json?.result;
}

function expect(cond, message) {
  if (!cond) throw new Error(message);
}

const sandbox = await startSalesforceSandboxProcess(join(work, 'data'));
env = sfEnv(sandbox.token);
try {
  const version = await exec(SF, ['--version'], env);
  console.log(`# ${version.stdout.trim() || version.stderr.trim()}`);
  console.log(`# sandbox ${sandbox.url}`);
  const o = ['--target-org', ALIAS];
  /** `sf data query` of `soql`: its result, and the start of its output for failure messages. */
  const query = async (soql) => {
    const out = await exec(SF, ['data', 'query', ...o, '--query', soql, '--json'], env);
    return { result: JSON.parse(out.stdout).result, text: out.stdout.slice(0, 300) };
  };

  await check(
    'org login access-token',
    ['org', 'login', 'access-token', '--instance-url', sandbox.url, '--alias', ALIAS, '--no-prompt'],
    (r) => expect(/^00D/.test(r.orgId ?? ''), `orgId: ${JSON.stringify(r)}`),
  );
  await check(
    'data query (REST)',
    ['data', 'query', ...o, '--query', 'SELECT Id, Name FROM Account ORDER BY Name LIMIT 5'],
    (r) =>
      expect(
        r.totalSize > 0 && r.records.every((x) => /^001/.test(x.Id)),
        `records: ${JSON.stringify(r).slice(0, 300)}`,
      ),
  );
  await check(
    'data query --use-tooling-api',
    [
      'data',
      'query',
      ...o,
      '--use-tooling-api',
      '--query',
      "SELECT QualifiedApiName, Label FROM EntityDefinition WHERE QualifiedApiName = 'Account'",
    ],
    (r) =>
      expect(r.records?.[0]?.QualifiedApiName === 'Account', `records: ${JSON.stringify(r).slice(0, 300)}`),
  );
  await check('sobject describe', ['sobject', 'describe', ...o, '--sobject', 'Account'], (r) =>
    expect(r.name === 'Account' && r.fields.some((f) => f.name === 'Name'), `describe: ${String(r.name)}`),
  );

  const created = await check(
    'data create record',
    [
      'data',
      'create',
      'record',
      ...o,
      '--sobject',
      'Account',
      '--values',
      "Name='CLI Check Co' Description='made by sf'",
    ],
    (r) => expect(r.success === true && /^001/.test(r.id), JSON.stringify(r)),
  );
  const id = created?.id ?? '';
  await check(
    'data get record',
    ['data', 'get', 'record', ...o, '--sobject', 'Account', '--record-id', id],
    (r) =>
      expect(r.Name === 'CLI Check Co' && r.Description === 'made by sf', JSON.stringify(r).slice(0, 300)),
  );
  await check(
    'data get record --where',
    ['data', 'get', 'record', ...o, '--sobject', 'Account', '--where', "Name='CLI Check Co'"],
    (r) => expect(r.Id === id, JSON.stringify(r).slice(0, 300)),
  );
  await check(
    'data update record',
    [
      'data',
      'update',
      'record',
      ...o,
      '--sobject',
      'Account',
      '--record-id',
      id,
      '--values',
      "Name='CLI Check Renamed'",
    ],
    async () => {
      const q = await query(`SELECT Name FROM Account WHERE Id = '${id}'`);
      expect(q.result.records[0]?.Name === 'CLI Check Renamed', q.text);
    },
  );
  await check(
    'data delete record',
    ['data', 'delete', 'record', ...o, '--sobject', 'Account', '--record-id', id],
    async () => {
      const q = await query(`SELECT COUNT() FROM Account WHERE Id = '${id}'`);
      expect(q.result.totalSize === 0, q.text);
    },
  );

  writeFileSync(join(work, 'notes.txt'), 'uploaded by the Salesforce CLI\n');
  await check('data create file', ['data', 'create', 'file', ...o, '--file', 'notes.txt'], (r) =>
    expect(/^068/.test(r.Id ?? '') && r.Title === 'notes' && r.FileExtension === 'txt', JSON.stringify(r)),
  );

  writeFileSync(
    join(work, 'tree.json'),
    JSON.stringify({
      records: [
        {
          attributes: { type: 'Account', referenceId: 'TreeRef1' },
          Name: 'CLI Tree Co',
          Contacts: {
            records: [
              {
                attributes: { type: 'Contact', referenceId: 'TreeRef2' },
                LastName: 'Treeson',
                Email: 'tree@example.com',
              },
            ],
          },
        },
      ],
    }),
  );
  await check('data import tree', ['data', 'import', 'tree', ...o, '--files', 'tree.json'], async (r) => {
    const refs = (Array.isArray(r) ? r : []).map((x) => x.refId);
    expect(refs.includes('TreeRef1') && refs.includes('TreeRef2'), JSON.stringify(r).slice(0, 300));
    const q = await query("SELECT Account.Name FROM Contact WHERE LastName = 'Treeson'");
    expect(q.result.records[0]?.Account?.Name === 'CLI Tree Co', q.text);
  });

  writeFileSync(join(work, 'import.csv'), 'Name,External_Id__c\nCLI Bulk One,CLI-1\nCLI Bulk Two,CLI-2\n');
  await check(
    'data import bulk',
    ['data', 'import', 'bulk', ...o, '--sobject', 'Account', '--file', 'import.csv', '--wait', '5'],
    (r) =>
      expect(
        r.processedRecords === 2 && r.successfulRecords === 2 && r.failedRecords === 0,
        JSON.stringify(r),
      ),
  );
  writeFileSync(
    join(work, 'upsert.csv'),
    'Name,External_Id__c\nCLI Bulk One Renamed,CLI-1\nCLI Bulk Three,CLI-3\n',
  );
  await check(
    'data upsert bulk',
    [
      'data',
      'upsert',
      'bulk',
      ...o,
      '--sobject',
      'Account',
      '--file',
      'upsert.csv',
      '--external-id',
      'External_Id__c',
      '--wait',
      '5',
    ],
    async (r) => {
      // `data upsert bulk` answers the job info and the result rows, not the import summary.
      const job = r.jobInfo ?? {};
      expect(job.state === 'JobComplete' && job.numberRecordsProcessed === 2, JSON.stringify(job));
      expect(job.numberRecordsFailed === 0 && r.records?.successfulResults?.length === 2, JSON.stringify(r));
      const q = await query(
        "SELECT Name FROM Account WHERE External_Id__c LIKE 'CLI-%' ORDER BY External_Id__c",
      );
      const names = q.result.records.map((x) => x.Name);
      expect(
        JSON.stringify(names) === JSON.stringify(['CLI Bulk One Renamed', 'CLI Bulk Two', 'CLI Bulk Three']),
        JSON.stringify(names),
      );
    },
  );
  await check(
    'data export bulk',
    [
      'data',
      'export',
      'bulk',
      ...o,
      '--query',
      "SELECT Id, Name FROM Account WHERE External_Id__c LIKE 'CLI-%'",
      '--output-file',
      'export.csv',
      '--result-format',
      'csv',
      '--wait',
      '5',
    ],
    (r) => {
      expect(r.totalSize === 3, JSON.stringify(r));
      const lines = readFileSync(join(work, 'export.csv'), 'utf8').trim().split(/\r?\n/);
      expect(lines.length === 4 && /Name/.test(lines[0] ?? ''), lines.join(' | '));
      // The exported Ids feed the bulk update and delete below.
      const header = (lines[0] ?? '').split(',');
      const idAt = header.findIndex((h) => h.replaceAll('"', '') === 'Id');
      const ids = lines.slice(1).map((l) => (l.split(',')[idAt] ?? '').replaceAll('"', ''));
      writeFileSync(
        join(work, 'update.csv'),
        `Id,Description\n${ids.map((i) => `${i},updated in bulk`).join('\n')}\n`,
      );
      writeFileSync(join(work, 'delete.csv'), `Id\n${ids.join('\n')}\n`);
    },
  );

  // Beyond the list above: more commands a developer reaches for.
  await check(
    'data update bulk',
    ['data', 'update', 'bulk', ...o, '--sobject', 'Account', '--file', 'update.csv', '--wait', '5'],
    (r) => expect(r.processedRecords === 3 && r.successfulRecords === 3, JSON.stringify(r)),
  );
  await check(
    'data search',
    [
      'data',
      'search',
      ...o,
      '--query',
      'FIND {CLI Bulk} IN NAME FIELDS RETURNING Account(Name, Description)',
    ],
    (r) =>
      expect(
        r.searchRecords?.length === 3 && r.searchRecords.every((x) => x.Description === 'updated in bulk'),
        JSON.stringify(r).slice(0, 400),
      ),
  );
  await check(
    'data delete bulk',
    ['data', 'delete', 'bulk', ...o, '--sobject', 'Account', '--file', 'delete.csv', '--wait', '5'],
    async (r) => {
      expect(
        r.jobInfo?.state === 'JobComplete' && r.jobInfo?.numberRecordsFailed === 0,
        JSON.stringify(r).slice(0, 400),
      );
      const q = await query("SELECT COUNT() FROM Account WHERE External_Id__c LIKE 'CLI-%'");
      expect(q.result.totalSize === 0, q.text);
    },
  );
  await check(
    'data query Organization',
    ['data', 'query', ...o, '--query', 'SELECT Id, Name, IsSandbox, OrganizationType FROM Organization'],
    (r) => expect(r.totalSize === 1 && /^00D/.test(r.records[0]?.Id ?? ''), JSON.stringify(r).slice(0, 300)),
  );
  await check(
    'data query (date function, ORDER BY an aggregate)',
    [
      'data',
      'query',
      ...o,
      '--query',
      'SELECT CALENDAR_YEAR(CloseDate) y, COUNT(Id) n FROM Opportunity GROUP BY CALENDAR_YEAR(CloseDate) ORDER BY COUNT(Id) DESC',
    ],
    (r) =>
      expect(
        r.totalSize > 0 && r.records.every((x) => Number.isInteger(x.y) && x.n > 0),
        JSON.stringify(r).slice(0, 300),
      ),
  );
  await check('sobject list', ['sobject', 'list', ...o, '--sobject', 'all'], (r) =>
    expect(
      Array.isArray(r) && ['Account', 'Organization', 'UserRole', 'RecordType'].every((n) => r.includes(n)),
      JSON.stringify(r).slice(0, 300),
    ),
  );
  await check(
    'org list sobject record-counts',
    ['org', 'list', 'sobject', 'record-counts', ...o, '--sobject', 'Account', '--sobject', 'Organization'],
    (r) =>
      expect(
        Array.isArray(r) &&
          r.some((c) => c.name === 'Account' && c.count > 0) &&
          r.some((c) => c.name === 'Organization' && c.count === 1),
        JSON.stringify(r).slice(0, 300),
      ),
  );
  await check('org list', ['org', 'list'], (r) =>
    expect(
      Object.values(r ?? {})
        .flat()
        .some((org) => org?.alias === ALIAS),
      JSON.stringify(r).slice(0, 300),
    ),
  );
  await check('org list limits', ['org', 'list', 'limits', ...o], (r) =>
    expect(
      Array.isArray(r) && r.some((l) => l.name === 'DailyApiRequests' && l.remaining < l.max),
      JSON.stringify(r).slice(0, 300),
    ),
  );
} finally {
  sandbox.child.removeAllListeners('exit');
  sandbox.child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}

const failed = results.filter((r) => !r.ok);
console.log(`\n${results.length - failed.length}/${results.length} checks passed`);
process.exitCode = failed.length === 0 ? 0 : 1;
