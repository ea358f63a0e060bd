// `connections add` checks a connection with one authenticated call before storing it, and refuses
// OAuth credentials without the CRM's OAuth app; `connect-link` creates, lists and revokes links.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  loadOrCreateBootstrapCredentials,
  type SandboxPair,
  startSandboxes,
} from '../../src/cli/sandbox-bootstrap.ts';
import { cleanEnv, runCli } from './run-cli.ts';

const key = randomBytes(32).toString('base64');

describe('crm-proxy CLI: checked connections and connect links', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let sandboxes: SandboxPair;
  let credentials: ReturnType<typeof loadOrCreateBootstrapCredentials>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crm-proxy-connect-cli-'));
    env = cleanEnv({
      CRM_PROXY_DATA_DIR: dir,
      CRM_PROXY_ENCRYPTION_KEYS: `k1:${key}`,
      CRM_PROXY_REGION: 'eu',
    });
    // As `npm start` does: the sandboxes run with the data directory's bootstrap OAuth clients.
    credentials = loadOrCreateBootstrapCredentials(dir);
    sandboxes = await startSandboxes({ ports: { salesforce: 0, hubspot: 0 }, credentials });
  });
  after(async () => {
    await sandboxes.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const list = async () =>
    JSON.parse((await runCli(['connections', 'list', '--json'], env)).stdout) as Array<{
      id: string;
      accountId: string | null;
    }>;

  test('an OAuth refresh token without the CRM OAuth app is refused at add time, naming the variables', async () => {
    const sf = await runCli(
      [
        'connections',
        'add',
        '--provider',
        'salesforce',
        '--instance-url',
        'https://acme.my.salesforce.com',
        '--refresh-token',
        '-',
      ],
      env,
      'sf-refresh\n',
    );
    assert.equal(sf.code, 1);
    assert.match(sf.stderr, /SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET/);
    const hs = await runCli(
      ['connections', 'add', '--provider', 'hubspot', '--refresh-token', 'x', '--skip-check'],
      env,
    );
    assert.equal(hs.code, 1);
    assert.match(hs.stderr, /HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET/);
    // Input mistakes still come first.
    const badUrl = await runCli(
      [
        'connections',
        'add',
        '--provider',
        'salesforce',
        '--instance-url',
        'http://acme.example',
        '--refresh-token',
        'x',
      ],
      env,
    );
    assert.match(badUrl.stderr, /instanceUrl must use https/);
    assert.deepEqual(await list(), []);
  });

  test('a working refresh token is checked (org id stored); a dead one is refused and nothing is stored', async () => {
    const sf = sandboxes.salesforce;
    const add = (refreshToken: string) =>
      runCli(
        [
          'connections',
          'add',
          '--provider',
          'salesforce',
          '--sandbox',
          '--instance-url',
          sf.url,
          '--api-base-url',
          sf.url,
          '--refresh-token',
          '-',
          '--json',
        ],
        env,
        `${refreshToken}\n`,
      );
    const good = await add(credentials.salesforce.refreshToken);
    assert.equal(good.code, 0, good.stderr);
    const created = JSON.parse(good.stdout) as { id: string; accountId: string | null; status: string };
    assert.match(created.accountId ?? '', /^00D/);
    assert.equal(created.status, 'active');

    const dead = await add('5Aep861notARealRefreshToken');
    assert.equal(dead.code, 1);
    assert.match(dead.stderr, /Salesforce refused the refresh token .*nothing was stored/);
    assert.deepEqual(
      (await list()).map((c) => c.id),
      [created.id],
    );

    // `connections reauth` checks the same way; a refused token changes nothing.
    const reauth = (refreshToken: string) =>
      runCli(['connections', 'reauth', created.id, '--refresh-token', '-'], env, `${refreshToken}\n`);
    const again = await reauth(credentials.salesforce.refreshToken);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /Checked: the credentials work/);
    const refused = await reauth('5Aep861stillNotARealToken');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refused the refresh token .*nothing was changed/);
  });

  test('a HubSpot private-app token is checked with one read; a bad one is refused', async () => {
    const hs = sandboxes.hubspot;
    const add = (token: string) =>
      runCli(
        [
          'connections',
          'add',
          '--provider',
          'hubspot',
          '--sandbox',
          '--api-base-url',
          hs.url,
          '--private-app-token',
          '-',
        ],
        env,
        `${token}\n`,
      );
    const good = await add(hs.credentials.privateAppToken);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stderr, /Checked/);
    const bad = await add('pat-na1-00000000-0000-0000-0000-000000000000');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /check call to HubSpot failed: reading one contact answered 401/);
  });

  test('connect-link create, list and revoke; a real CRM without its app is refused', async () => {
    const noApp = await runCli(
      ['connect-link', 'create', '--provider', 'salesforce', '--login-host', 'test.salesforce.com'],
      env,
    );
    assert.equal(noApp.code, 1);
    assert.match(noApp.stderr, /SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET/);
    const badHost = await runCli(
      ['connect-link', 'create', '--provider', 'salesforce', '--login-host', 'https://evil.example'],
      { ...env, SALESFORCE_CLIENT_ID: 'id', SALESFORCE_CLIENT_SECRET: 'secret' },
    );
    assert.equal(badHost.code, 1);
    assert.match(badHost.stderr, /not a Salesforce login host/);

    const created = await runCli(
      [
        'connect-link',
        'create',
        '--provider',
        'salesforce',
        '--login-host',
        'test.salesforce.com',
        '--label',
        'Acme',
        '--expires-in',
        '2h',
      ],
      { ...env, SALESFORCE_CLIENT_ID: 'id', SALESFORCE_CLIENT_SECRET: 'secret' },
    );
    assert.equal(created.code, 0, created.stderr);
    const url = created.stdout.trim();
    assert.match(url, /^http:\/\/127\.0\.0\.1:8080\/connect\/[A-Za-z0-9_-]{43}$/);
    assert.match(created.stderr, /set CRM_PROXY_PUBLIC_URL_EU/);

    const withPublic = await runCli(['connect-link', 'create', '--provider', 'hubspot', '--json'], {
      ...env,
      CRM_PROXY_PUBLIC_URL_EU: 'https://crm-proxy.example.com',
    });
    assert.equal(withPublic.code, 0, withPublic.stderr);
    const hsLink = JSON.parse(withPublic.stdout) as { id: string; url: string; expiresAt: string };
    assert.match(hsLink.url, /^https:\/\/crm-proxy\.example\.com\/connect\//);

    const links = JSON.parse((await runCli(['connect-link', 'list', '--json'], env)).stdout) as Array<{
      id: string;
      status: string;
      label: string | null;
      loginUrl: string | null;
    }>;
    assert.equal(links.length, 2);
    const sfLink = links.find((l) => l.label === 'Acme');
    assert.equal(sfLink?.status, 'active');
    assert.equal(sfLink?.loginUrl, 'https://test.salesforce.com');
    // Only a hash of the secret is kept: the listing never shows it.
    const secret = url.split('/').pop() ?? '';
    assert.ok(!JSON.stringify(links).includes(secret));

    const revoked = await runCli(['connect-link', 'revoke', sfLink?.id ?? ''], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match((await runCli(['connect-link', 'list'], env)).stdout, /revoked/);
    assert.equal((await runCli(['connect-link', 'revoke', 'cl_missing'], env)).code, 1);
  });
});
