import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { withCliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { cleanEnv, runCli } from './run-cli.ts';

/**
 * The CLI in-process with its working directory set to `cwd`, as a user running it from there;
 * `tty` answers a question as a person at a terminal would.
 */
async function runIn(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv = cleanEnv({}),
  tty?: { answer: string },
) {
  let stdout = '';
  let stderr = '';
  const stdin = Object.assign(Readable.from([tty === undefined ? '' : `${tty.answer}\n`]), {
    isTTY: tty !== undefined,
  });
  // A terminal's stderr says so with isTTY, as process.stderr does.
  const err = { isTTY: tty !== undefined, write: (t: string) => (stderr += t) };
  const code = await withCliIo(
    { env, cwd, stdin, stdout: { write: (t: string) => (stdout += t) }, stderr: err },
    () => main(args),
  );
  return { code, stdout, stderr };
}

describe('crm-proxy CLI: --help everywhere, the store found as the service finds it', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'crm-proxy-cli-dx-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('--help on every command and subcommand answers its usage, exit 0, without opening a store', async () => {
    const cwd = join(root, 'help');
    mkdirSync(cwd);
    const cases: Array<[string[], RegExp]> = [
      [
        ['connections', '--help'],
        /^\.\/bin\/crm-proxy\.mjs connections add[\s\S]*\.\/bin\/crm-proxy\.mjs connections list/,
      ],
      [['connections', 'add', '--help'], /^\.\/bin\/crm-proxy\.mjs connections add --provider salesforce/],
      [['connections', 'reauth', '-h'], /^\.\/bin\/crm-proxy\.mjs connections reauth ID/],
      [['tokens', 'create', '--help'], /^\.\/bin\/crm-proxy\.mjs tokens create --connection ID/],
      [['tokens', 'create', '--connection', 'x', '--help'], /^\.\/bin\/crm-proxy\.mjs tokens create/],
      [['tokens', 'revoke', '--help'], /^\.\/bin\/crm-proxy\.mjs tokens revoke ID\|PREFIX/],
      [['tokens', '--help'], /^\.\/bin\/crm-proxy\.mjs tokens create[\s\S]*tokens list[\s\S]*tokens revoke/],
      [['connect-link', 'create', '--help'], /^\.\/bin\/crm-proxy\.mjs connect-link create --provider/],
      [['jobs', 'watch', '--help'], /^\.\/bin\/crm-proxy\.mjs jobs watch ID/],
      [['operators', 'key', 'create', '--help'], /^\.\/bin\/crm-proxy\.mjs operators key create --email/],
      [['operators', '--help'], /^\.\/bin\/crm-proxy\.mjs operators create[\s\S]*operators key revoke/],
      [['requests', 'list', '--help'], /^\.\/bin\/crm-proxy\.mjs requests list/],
      [['usage', '--help'], /^\.\/bin\/crm-proxy\.mjs usage/],
      [['rotate-key', '--help'], /^\.\/bin\/crm-proxy\.mjs rotate-key/],
      [['doctor', '--help'], /^\.\/bin\/crm-proxy\.mjs doctor/],
      [['init', '--help'], /^\.\/bin\/crm-proxy\.mjs init/],
      [['help', 'tokens', 'list'], /^\.\/bin\/crm-proxy\.mjs tokens list/],
      [['serve', '--help'], /^\.\/bin\/crm-proxy\.mjs serve/],
    ];
    for (const [args, shape] of cases) {
      const r = await runIn(cwd, args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, shape, args.join(' '));
      if (args[0] !== 'serve') assert.match(r.stdout, /CRM_PROXY_DATA_DIR/, args.join(' '));
    }
    // A subcommand's help holds only its own block.
    const create = await runIn(cwd, ['tokens', 'create', '--help']);
    assert.doesNotMatch(create.stdout, /tokens revoke/);
    assert.equal(existsSync(join(cwd, 'data')), false, 'help created nothing');
  });

  test('from a directory with no configuration, a command refuses to create a new empty store and says how to point it', async () => {
    const cwd = join(root, 'elsewhere');
    mkdirSync(cwd);
    for (const args of [
      ['connections', 'list'],
      ['tokens', 'list'],
      ['operators', 'list'],
    ]) {
      const r = await runIn(cwd, args);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`Store: SQLite ${join(cwd, 'data', 'crm-proxy.sqlite')}`));
      assert.match(r.stderr, /No store at .* Nothing was created/);
      assert.match(r.stderr, /CRM_PROXY_DATA_DIR=.*DATABASE_URL=.*CRM_PROXY_CONFIG=/);
      assert.match(r.stderr, /\.\/bin\/crm-proxy\.mjs init/);
    }
    assert.equal(existsSync(join(cwd, 'data')), false, 'no store, no key, no directory');

    // init creates it where it says; then the same command works and prints the location.
    const init = await runIn(cwd, ['init']);
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stderr, /Created a new empty store/);
    assert.ok(existsSync(join(cwd, 'data', 'crm-proxy.sqlite')));
    const list = await runIn(cwd, ['connections', 'list']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stderr, /No connections/);
  });

  test('a bad option value is a usage error before any store is looked for or opened', async () => {
    const cwd = join(root, 'bad-options');
    mkdirSync(cwd);
    for (const [args, message] of [
      [['requests', 'list', '--status', '6xx'], /--status must be 2xx, 3xx, 4xx or 5xx/],
      [['requests', 'list', '--limit', '0'], /--limit takes a whole number from 1 to 1000/],
      [['usage', '--hours', '0'], /--hours takes a whole number from 1 to 168/],
      [['jobs', 'list', '--limit', 'x'], /--limit takes a whole number from 1 to 1000/],
    ] as const) {
      const r = await runIn(cwd, [...args]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /Store:/);
    }
    assert.equal(existsSync(join(cwd, 'data')), false);
  });

  test('at a terminal the command asks first: no creates nothing, yes creates the store', async () => {
    const cwd = join(root, 'asked');
    mkdirSync(cwd);
    const no = await runIn(cwd, ['tokens', 'list'], cleanEnv({}), { answer: 'n' });
    assert.equal(no.code, 1, no.stderr);
    assert.match(no.stderr, /Create a new empty store here\? \[y\/N\]/);
    assert.match(no.stderr, /Nothing was created/);
    assert.equal(existsSync(join(cwd, 'data')), false);
    const yes = await runIn(cwd, ['tokens', 'list'], cleanEnv({}), { answer: 'y' });
    assert.equal(yes.code, 0, yes.stderr);
    assert.ok(existsSync(join(cwd, 'data', 'crm-proxy.sqlite')));
  });

  test('a PostgreSQL store is named without its password, also when it cannot be reached', async () => {
    const cwd = join(root, 'pg');
    mkdirSync(cwd);
    const secret = 'pw-4f1c9e0b7a';
    // Port 9 (discard) on loopback: nothing listens there, so the connection is refused at once.
    const env = cleanEnv({ DATABASE_URL: `postgres://crm:${secret}@127.0.0.1:9/crm` });
    const doctor = await runIn(cwd, ['doctor'], env);
    assert.equal(doctor.code, 1);
    assert.match(
      doctor.stderr,
      /store: PostgreSQL postgres:\/\/crm:\*\*\*@127\.0\.0\.1:9\/crm \(from DATABASE_URL in the environment\) could not be opened/,
    );
    assert.ok(!doctor.stderr.includes(secret) && !doctor.stdout.includes(secret));
  });

  test('.env in the working directory and CRM_PROXY_CONFIG name the store as they do for the service', async () => {
    const service = join(root, 'service');
    mkdirSync(service);
    writeFileSync(join(service, '.env'), '# the service\nCRM_PROXY_DATA_DIR=state\nCRM_PROXY_REGION=us\n');
    // A configured place may be created: it is where the service will look too.
    const first = await runIn(service, ['connections', 'list']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(
      first.stderr,
      new RegExp(
        `Store: SQLite ${join(service, 'state', 'crm-proxy.sqlite')} \\(from CRM_PROXY_DATA_DIR in ${join(service, '.env')}\\)`,
      ),
    );
    assert.ok(existsSync(join(service, 'state', 'crm-proxy.sqlite')));

    // From another directory, CRM_PROXY_CONFIG finds the same store (relative to the file).
    const other = join(root, 'other');
    mkdirSync(other);
    const viaFile = await runIn(
      other,
      ['tokens', 'list'],
      cleanEnv({ CRM_PROXY_CONFIG: join(service, '.env') }),
    );
    assert.equal(viaFile.code, 0, viaFile.stderr);
    assert.match(viaFile.stderr, new RegExp(`SQLite ${join(service, 'state', 'crm-proxy.sqlite')}`));
    assert.equal(existsSync(join(other, 'data')), false);

    // The environment wins over the file.
    const envWins = await runIn(
      service,
      ['connections', 'list'],
      cleanEnv({ CRM_PROXY_DATA_DIR: join(root, 'from-env') }),
    );
    assert.match(envWins.stderr, /from CRM_PROXY_DATA_DIR in the environment/);

    // A missing CRM_PROXY_CONFIG file is named, nothing created.
    const missing = await runIn(other, ['connections', 'list'], cleanEnv({ CRM_PROXY_CONFIG: 'nope.env' }));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /CRM_PROXY_CONFIG names .*nope\.env, which does not exist/);
  });

  test('the installed launcher answers --help on a subcommand too', async () => {
    const r = await runCli(['tokens', 'create', '--help'], cleanEnv({}), undefined, true);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\.\/bin\/crm-proxy\.mjs tokens create/);
  });
});
