// Both sandboxes with `persistDir`: a grant made through the consent page, and the records written
// with it, are still there after a restart (the same data directory, the same bootstrap client).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startHubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { startSalesforceSandbox } from '../../sandbox/salesforce/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-persist-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const REDIRECT = 'http://127.0.0.1:9/oauth/callback';

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual' as const,
});

/** Allows on the consent page and exchanges the code: the grant a console connection gets. */
async function consent(url: string, path: string, fields: Record<string, string>): Promise<string> {
  const decision = await fetch(`${url}${path}`, form({ redirect_uri: REDIRECT, state: 's', ...fields }));
  assert.equal(decision.status, 302, await decision.text());
  const code = new URL(decision.headers.get('location') ?? '').searchParams.get('code');
  assert.ok(code);
  return code;
}

test('the HubSpot sandbox keeps a consent grant and its records across a restart', async () => {
  const first = await startHubSpotSandbox({ port: 0, persistDir: dir });
  const { clientId, clientSecret } = first.credentials;
  const code = await consent(first.url, '/oauth/authorize', {
    client_id: clientId,
    scope: 'crm.objects.contacts.read crm.objects.contacts.write',
    decision: 'allow',
  });
  const tokenCall = (url: string, fields: Record<string, string>) =>
    fetch(`${url}/oauth/v1/token`, form({ client_id: clientId, client_secret: clientSecret, ...fields }));
  const issued = (await (
    await tokenCall(first.url, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT })
  ).json()) as { access_token: string; refresh_token: string };
  assert.ok(issued.refresh_token);
  const created = await fetch(`${first.url}/crm/v3/objects/contacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${issued.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ properties: { email: 'kept@example.com' } }),
  });
  assert.equal(created.status, 201, await created.clone().text());
  const { id } = (await created.json()) as { id: string };
  await first.close();

  const second = await startHubSpotSandbox({ port: 0, persistDir: dir, credentials: first.credentials });
  const refreshed = await tokenCall(second.url, {
    grant_type: 'refresh_token',
    refresh_token: issued.refresh_token,
  });
  assert.equal(refreshed.status, 200, await refreshed.clone().text());
  const { access_token } = (await refreshed.json()) as { access_token: string };
  const got = await fetch(`${second.url}/crm/v3/objects/contacts/${id}?properties=email`, {
    headers: { authorization: `Bearer ${access_token}` },
  });
  assert.equal(got.status, 200);
  assert.equal(
    ((await got.json()) as { properties: { email: string } }).properties.email,
    'kept@example.com',
  );
  // The access token issued before the restart is still valid until it expires.
  const old = await fetch(`${second.url}/crm/v3/objects/contacts/${id}`, {
    headers: { authorization: `Bearer ${issued.access_token}` },
  });
  assert.equal(old.status, 200);
  // New record ids continue after the kept ones.
  const next = await fetch(`${second.url}/crm/v3/objects/contacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ properties: { email: 'next@example.com' } }),
  });
  assert.notEqual(((await next.json()) as { id: string }).id, id);
  await second.close();

  const fresh = await startHubSpotSandbox({ port: 0, credentials: first.credentials });
  const unknown = await tokenCall(fresh.url, {
    grant_type: 'refresh_token',
    refresh_token: issued.refresh_token,
  });
  assert.equal(unknown.status, 400, 'without persistDir the grant is gone');
  await fresh.close();
});

test('the Salesforce sandbox keeps a consent grant across a restart', async () => {
  const own = join(dir, 'sf');
  const first = await startSalesforceSandbox({ port: 0, persistDir: own });
  const { clientId, clientSecret } = first.credentials;
  const code = await consent(first.url, '/services/oauth2/authorize', {
    client_id: clientId,
    response_type: 'code',
    scope: 'api refresh_token',
    action: 'allow',
  });
  const tokenCall = (url: string, fields: Record<string, string>) =>
    fetch(
      `${url}/services/oauth2/token`,
      form({ client_id: clientId, client_secret: clientSecret, ...fields }),
    );
  const issued = (await (
    await tokenCall(first.url, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT })
  ).json()) as { refresh_token: string };
  assert.ok(issued.refresh_token);
  await first.close();

  const second = await startSalesforceSandbox({ port: 0, persistDir: own, credentials: first.credentials });
  const refreshed = await tokenCall(second.url, {
    grant_type: 'refresh_token',
    refresh_token: issued.refresh_token,
  });
  assert.equal(refreshed.status, 200, await refreshed.clone().text());
  const { access_token } = (await refreshed.json()) as { access_token: string };
  const limits = await fetch(`${second.url}/services/data/v62.0/limits`, {
    headers: { authorization: `Bearer ${access_token}` },
  });
  assert.equal(limits.status, 200);
  // The bootstrap refresh token of this start works beside the kept grant.
  const bootstrap = await tokenCall(second.url, {
    grant_type: 'refresh_token',
    refresh_token: second.credentials.refreshToken,
  });
  assert.equal(bootstrap.status, 200);
  await second.close();
});
