// The browser connect flow through the HTTP API, against the sandboxes' consent pages: success for
// both CRMs, re-connect in place, and every failure the flow names (each ends on a page, creates nothing).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { connectBanner } from '../../src/cli/serve.ts';
import { sameAccount } from '../../src/http/console/notices.ts';
import { startStack } from '../helpers/stack.ts';
import { beginFlow, callback, connectedId, consent, local, openLink, runFlow } from './connect-helpers.ts';

describe('connect flow', () => {
  test('Salesforce through a connect link: PKCE, binding cookie, connected page, a working connection; the link works once', async (t) => {
    const stack = await startStack(t);
    const before = await stack.ctx.connections.list();
    const link = await stack.ctx.connect.createLink({ provider: 'salesforce', label: 'Acme sandbox org' });
    assert.match(link.url, /^https:\/\/eu\.crm-proxy\.test\/connect\/[A-Za-z0-9_-]{43}$/);
    assert.equal(link.link.status, 'active');

    // Our landing page first: it names the service, the CRM and what will be shared.
    const landing = await fetch(local(stack, link.url), { redirect: 'manual' });
    const landingHtml = await landing.text();
    assert.equal(landing.status, 200);
    assert.match(landingHtml, /Connect your Salesforce account/);
    assert.match(landingHtml, /eu\.crm-proxy\.test asks for access/);
    assert.doesNotMatch(landingHtml, /reason|link_landing|conn_/);
    assert.match(landingHtml, /read and write the Salesforce records your user can see/);
    assert.match(landingHtml, /<dd><code>Acme sandbox org<\/code><\/dd>/);
    assert.match(landingHtml, /name="viewport"/);
    const opened = await fetch(`${local(stack, link.url)}?continue=1`, { redirect: 'manual' });
    await opened.text();
    assert.equal(opened.status, 303);
    assert.equal(opened.headers.get('referrer-policy'), 'no-referrer');
    const setCookie = opened.headers.getSetCookie().find((c) => c.startsWith('crmp_oauth_')) ?? '';
    assert.match(setCookie, /^crmp_oauth_[0-9a-f]{16}=[A-Za-z0-9_-]{43}; /);
    for (const attribute of ['Path=/oauth', 'Max-Age=600', 'HttpOnly', 'SameSite=Lax'])
      assert.ok(setCookie.includes(attribute), `${attribute} in ${setCookie}`);
    assert.ok(!setCookie.includes('Secure'), 'plain http: no Secure attribute');
    const authorize = new URL(opened.headers.get('location') ?? '');
    assert.equal(`${authorize.origin}${authorize.pathname}`, `${stack.sf.url}/services/oauth2/authorize`);
    assert.equal(authorize.searchParams.get('redirect_uri'), 'https://eu.crm-proxy.test/oauth/callback');
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.match(authorize.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(authorize.searchParams.get('state') ?? '', /^[A-Za-z0-9_-]{43}$/);

    const back = await consent(authorize.toString(), 'allow');
    const cookie = setCookie.split(';')[0] ?? '';
    const done = await callback(stack, back, cookie);
    assert.equal(done.status, 200, done.html);
    assert.equal(done.outcome, 'connected');
    assert.match(done.headers.get('content-type') ?? '', /^text\/html/);
    const csp = done.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /style-src 'sha256-[A-Za-z0-9+/=]+'/);
    assert.ok(!csp.includes('unsafe-inline'));
    assert.equal(done.headers.get('referrer-policy'), 'no-referrer');
    assert.ok(!done.html.includes('<script'));
    // The binding cookie is spent.
    assert.match(done.headers.getSetCookie()[0] ?? '', /^crmp_oauth_[0-9a-f]{16}=; Path=\/oauth; Max-Age=0/);

    const id = connectedId(done);
    const connection = (await stack.ctx.connections.list()).find((c) => c.id === id);
    assert.ok(connection);
    assert.equal(connection.provider, 'salesforce');
    assert.equal(connection.status, 'active');
    assert.equal(connection.label, 'Acme sandbox org');
    assert.equal(connection.sandbox, true);
    assert.equal(connection.instanceUrl, stack.sf.url);
    assert.match(connection.accountId ?? '', /^00D/);
    assert.ok(done.html.includes(connection.accountId ?? 'missing'));
    const stored = await stack.ctx.connections.get(id);
    assert.equal(stored?.credentials.kind, 'oauth');

    // The new connection answers API calls with a token of its own.
    const token = await stack.ctx.auth.createToken({ connectionId: id, name: 'from the link' });
    assert.ok(token.ok);
    const describe = await stack.api('/v1/describe/Account', { token: token.token });
    assert.equal(describe.status, 200, describe.text);

    const links = await stack.ctx.connect.listLinks();
    assert.equal(links.find((l) => l.id === link.id)?.status, 'used');
    assert.equal(links.find((l) => l.id === link.id)?.connectionId, id);
    const second = await fetch(local(stack, link.url), { redirect: 'manual' });
    assert.equal(second.status, 410);
    assert.equal(second.headers.get('x-connect-outcome'), 'link_used');
    assert.match(await second.text(), /already used/);

    // Reloading the callback (the same state) is refused and creates nothing more.
    const replay = await callback(stack, back, cookie);
    assert.equal(replay.status, 400);
    assert.equal(replay.outcome, 'state_replayed');
    assert.equal((await stack.ctx.connections.list()).length, before.length + 1);
  });

  test('HubSpot through a connect link: scopes asked, portal id from the token information, a working connection', async (t) => {
    const stack = await startStack(t);
    const link = await stack.ctx.connect.createLink({ provider: 'hubspot', label: 'Marketing' });
    const start = await openLink(stack, link.url);
    const authorize = new URL(start.authorizeUrl);
    assert.equal(`${authorize.origin}${authorize.pathname}`, `${stack.hs.url}/oauth/authorize`);
    const scopes = (authorize.searchParams.get('scope') ?? '').split(' ');
    for (const s of ['oauth', 'crm.objects.contacts.read', 'crm.objects.companies.write', 'tickets'])
      assert.ok(scopes.includes(s), s);

    // A declined consent leaves the link usable: the owner can open it again and allow.
    const declined = await callback(stack, await consent(start.authorizeUrl, 'deny'), start.cookie);
    assert.equal(declined.outcome, 'access_denied');
    assert.equal((await stack.ctx.connect.listLinks()).find((l) => l.id === link.id)?.status, 'active');
    // The declined page leads back to the link's landing page.
    const again = /<a class="primary" href="([^"]+)">Start again<\/a>/.exec(declined.html)?.[1];
    assert.equal(again, new URL(link.url).pathname);
    const done = await runFlow(stack, await openLink(stack, link.url));
    assert.equal(done.status, 200, done.html);
    assert.equal(done.outcome, 'connected');
    const id = connectedId(done);
    const connection = (await stack.ctx.connections.list()).find((c) => c.id === id);
    assert.equal(connection?.provider, 'hubspot');
    assert.equal(connection?.apiBaseUrl, stack.hs.url);
    assert.equal(connection?.accountId, String(stack.hs.portal.portalId));

    const token = await stack.ctx.auth.createToken({ connectionId: id });
    assert.ok(token.ok);
    const get = await stack.api('/v1/object/get/contacts', {
      token: token.token,
      body: { data: { ids: ['1'], fields: ['email'] } },
    });
    assert.equal(get.status, 200, get.text);

    // The same portal again, through a second link: connected, and flagged with the first one.
    const twice = await stack.ctx.connect.createLink({ provider: 'hubspot', label: 'Marketing again' });
    const second = await runFlow(stack, await openLink(stack, twice.url));
    assert.equal(second.outcome, 'connected');
    // The account owner sees no internal id; the operator's console flags the pair.
    assert.doesNotMatch(second.html, /conn_|reason/);
    const twins = sameAccount(await stack.ctx.admin.connectionRecords());
    // One same-account rule: the seeded sandbox connection reaches this portal too, and is the earliest.
    assert.equal(twins.get(connectedId(second)), stack.connectionIds.hubspot);
    assert.equal(twins.get(id), stack.connectionIds.hubspot);
    // And from the console: the redirect names the earlier connection, the notice links to it.
    const fromConsole = await beginFlow(stack, { provider: 'hubspot', returnTo: '/console/connections' });
    const third = await runFlow(stack, fromConsole);
    assert.equal(third.status, 303);
    const location = new URL(third.headers.get('location') ?? '', 'http://x');
    assert.equal(location.searchParams.get('same_account_as'), stack.connectionIds.hubspot);
  });

  test('re-connect replaces the credentials in place, its API tokens keep working, and the browser goes back to returnTo', async (t) => {
    const stack = await startStack(t);
    const id = stack.connectionIds.salesforce;
    const versionBefore = (await stack.ctx.connections.get(id))?.version ?? 0;
    const count = (await stack.ctx.connections.list()).length;
    const start = await beginFlow(stack, {
      provider: 'salesforce',
      reconnect: id,
      returnTo: '/console/connections?tab=all',
    });
    const done = await runFlow(stack, start);
    assert.equal(done.status, 303, done.html);
    assert.equal(done.location, `/console/connections?tab=all&reconnected=${id}`);
    const after = await stack.ctx.connections.get(id);
    assert.ok((after?.version ?? 0) > versionBefore);
    assert.equal(after?.connection.status, 'active');
    assert.match(after?.connection.accountId ?? '', /^00D/);
    assert.equal((await stack.ctx.connections.list()).length, count);
    // The sandbox connection's original API token still reaches the org, now with the new grant.
    const describe = await stack.api('/v1/describe/Account');
    assert.equal(describe.status, 200, describe.text);

    // A new connection started from the console goes back with ?connected=.
    const fresh = await runFlow(
      stack,
      await beginFlow(stack, { provider: 'hubspot', returnTo: '/console/connections' }),
    );
    assert.equal(fresh.status, 303, fresh.html);
    assert.match(
      fresh.location ?? '',
      /^\/console\/connections\?connected=conn_[0-9A-Za-z]{20}(&same_account_as=conn_[0-9A-Za-z]{20})?$/,
    );
  });

  test('a re-connect signed in to another account changes nothing', async (t) => {
    const stack = await startStack(t);
    const id = stack.connectionIds.salesforce;
    const connection = (await stack.ctx.connections.list()).find((c) => c.id === id);
    assert.ok(connection);
    await stack.ctx.connections.setAccount(id, {
      accountId: '00D000000000001AAA',
      loginUrl: null,
      instanceUrl: connection.instanceUrl,
    });
    const version = (await stack.ctx.connections.get(id))?.version;
    const done = await runFlow(stack, await beginFlow(stack, { provider: 'salesforce', reconnect: id }));
    assert.equal(done.status, 400);
    assert.equal(done.outcome, 'other_account');
    assert.match(done.html, /another Salesforce account/);
    assert.equal((await stack.ctx.connections.get(id))?.version, version);
  });

  test('a denied consent, a forged, missing or replayed state, and a missing or foreign binding cookie each end on a page and create nothing', async (t) => {
    const stack = await startStack(t);
    const count = (await stack.ctx.connections.list()).length;

    const denied = await beginFlow(stack, { provider: 'salesforce' });
    const deniedBack = await consent(denied.authorizeUrl, 'deny');
    assert.equal(deniedBack.searchParams.get('error'), 'access_denied');
    const deniedPage = await callback(stack, deniedBack, denied.cookie);
    assert.equal(deniedPage.status, 400);
    assert.equal(deniedPage.outcome, 'access_denied');
    assert.match(deniedPage.html, /Access was not granted/);
    assert.match(deniedPage.html, /choose Allow/);
    // Started from the console: the way back is the console.
    assert.match(deniedPage.html, /<a href="\/console\/connections">Back to the console \(operators\)<\/a>/);

    const hsDenied = await beginFlow(stack, { provider: 'hubspot' });
    const hsPage = await callback(stack, await consent(hsDenied.authorizeUrl, 'deny'), hsDenied.cookie);
    assert.equal(hsPage.outcome, 'access_denied');

    // Another error from the CRM: its text is shown escaped, never as markup.
    const other = await beginFlow(stack, { provider: 'salesforce' });
    const otherState = new URL(other.authorizeUrl).searchParams.get('state') ?? '';
    const hostile = new URLSearchParams({
      error: 'invalid_scope<b>',
      error_description: '<script>alert(1)</script> scope not allowed',
      state: otherState,
    });
    const otherPage = await callback(stack, `${stack.baseUrl}/oauth/callback?${hostile}`, other.cookie);
    assert.equal(otherPage.status, 400);
    assert.equal(otherPage.outcome, 'crm_error');
    assert.ok(!otherPage.html.includes('<script>alert'));
    assert.ok(otherPage.html.includes('&lt;script&gt;alert(1)&lt;/script&gt; scope not allowed'));
    assert.match(otherPage.html, /invalid_scopeb/);

    const missing = await callback(stack, `${stack.baseUrl}/oauth/callback?code=abc`);
    assert.equal(missing.status, 400);
    assert.equal(missing.outcome, 'state_missing');

    const forged = await callback(stack, `${stack.baseUrl}/oauth/callback?code=abc&state=forged-state-value`);
    assert.equal(forged.status, 400);
    assert.equal(forged.outcome, 'state_unknown');
    assert.match(forged.html, /Unknown or forged/);

    // The browser that finishes must be the one that started: no cookie, or another flow's cookie.
    const noCookieStart = await beginFlow(stack, { provider: 'salesforce' });
    const noCookieBack = await consent(noCookieStart.authorizeUrl, 'allow');
    const noCookie = await callback(stack, noCookieBack);
    assert.equal(noCookie.status, 400);
    assert.equal(noCookie.outcome, 'binding_missing');
    const [name] = noCookieStart.cookie.split('=');
    const foreign = await callback(stack, noCookieBack, `${name}=${'A'.repeat(43)}`);
    assert.equal(foreign.status, 400);
    assert.equal(foreign.outcome, 'binding_mismatch');
    // Someone else presenting the callback URL cannot spend the flow: its own browser still finishes it.
    assert.equal((await callback(stack, noCookieBack, noCookieStart.cookie)).outcome, 'connected');

    // Replay: the same callback twice, the second time refused.
    const start = await beginFlow(stack, { provider: 'hubspot' });
    const back = await consent(start.authorizeUrl, 'allow');
    assert.equal((await callback(stack, back, start.cookie)).outcome, 'connected');
    const replay = await callback(stack, back, start.cookie);
    assert.equal(replay.status, 400);
    assert.equal(replay.outcome, 'state_replayed');
    assert.match(replay.html, /already used/);

    // Only the two successful flows created connections.
    assert.equal((await stack.ctx.connections.list()).length, count + 2);
    for (const page of [deniedPage, otherPage, missing, forged, noCookie, foreign, replay]) {
      assert.ok(!page.html.includes('<script'));
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    }
  });

  test('an expired state, and an expired, revoked or unknown link, are refused', async (t) => {
    let offset = 0;
    const stack = await startStack(t, { overrides: { clock: { now: () => Date.now() + offset } } });
    const count = (await stack.ctx.connections.list()).length;
    const start = await beginFlow(stack, { provider: 'salesforce' });
    const back = await consent(start.authorizeUrl, 'allow');
    offset += 10 * 60_000 + 1_000;
    const expired = await callback(stack, back, start.cookie);
    assert.equal(expired.status, 400);
    assert.equal(expired.outcome, 'state_expired');
    assert.match(expired.html, /within 10 minutes/);

    const old = await stack.ctx.connect.createLink({ provider: 'hubspot', ttlMs: 60 * 60_000 });
    offset += 60 * 60_000 + 1_000;
    const expiredLink = await fetch(local(stack, old.url), { redirect: 'manual' });
    assert.equal(expiredLink.status, 410);
    assert.equal(expiredLink.headers.get('x-connect-outcome'), 'link_expired');
    assert.equal((await stack.ctx.connect.listLinks()).find((l) => l.id === old.id)?.status, 'expired');

    const revoked = await stack.ctx.connect.createLink({ provider: 'salesforce' });
    assert.equal(await stack.ctx.connect.revokeLink(revoked.id), 'revoked');
    assert.equal(await stack.ctx.connect.revokeLink(revoked.id), 'already_revoked');
    await assert.rejects(stack.ctx.connect.revokeLink('cl_missing'), { code: 'not_found' });
    const revokedLink = await fetch(local(stack, revoked.url), { redirect: 'manual' });
    assert.equal(revokedLink.status, 410);
    assert.equal(revokedLink.headers.get('x-connect-outcome'), 'link_revoked');

    const unknown = await fetch(`${stack.baseUrl}/connect/not-a-real-link`, { redirect: 'manual' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get('x-connect-outcome'), 'link_unknown');
    assert.equal((await stack.ctx.connections.list()).length, count);
  });

  test('a link that expires or is revoked while its owner is on the consent page connects nothing', async (t) => {
    let offset = 0;
    const stack = await startStack(t, { overrides: { clock: { now: () => Date.now() + offset } } });
    const count = (await stack.ctx.connections.list()).length;
    // Valid for one minute: opened in time, consent given after it expired (within the state's 10).
    const short = await stack.ctx.connect.createLink({ provider: 'hubspot', ttlMs: 60_000 });
    const start = await openLink(stack, short.url);
    const back = await consent(start.authorizeUrl, 'allow');
    offset += 2 * 60_000;
    const late = await callback(stack, back, start.cookie);
    assert.equal(late.status, 410);
    assert.equal(late.outcome, 'link_expired');
    assert.equal((await stack.ctx.connect.listLinks()).find((l) => l.id === short.id)?.status, 'expired');

    const withdrawn = await stack.ctx.connect.createLink({ provider: 'salesforce' });
    const start2 = await openLink(stack, withdrawn.url);
    const back2 = await consent(start2.authorizeUrl, 'allow');
    assert.equal(await stack.ctx.connect.revokeLink(withdrawn.id), 'revoked');
    const revoked = await callback(stack, back2, start2.cookie);
    assert.equal(revoked.status, 410);
    assert.equal(revoked.outcome, 'link_revoked');
    assert.equal((await stack.ctx.connections.list()).length, count, 'nothing was created');
  });

  test('starting a flow: a real CRM without its OAuth app is refused naming the variables; login hosts are checked', async (t) => {
    const stack = await startStack(t);
    await assert.rejects(
      stack.ctx.connect.begin({ provider: 'salesforce', loginHost: 'test.salesforce.com' }),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, 'service_unavailable');
        assert.match(err.message, /SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET/);
        return true;
      },
    );
    await assert.rejects(
      stack.ctx.connect.begin({ provider: 'hubspot', sandbox: false }),
      /HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET/,
    );
    await assert.rejects(
      stack.ctx.connect.createLink({
        provider: 'hubspot',
        loginHost: 'https://app.hubspot.com',
        ttlMs: 3_600_000,
      }),
      /HUBSPOT_CLIENT_ID/,
    );
    await assert.rejects(
      stack.ctx.connect.createLink({ provider: 'hubspot', sandbox: false }),
      /HUBSPOT_CLIENT_ID/,
    );
    await assert.rejects(
      stack.ctx.connect.begin({ provider: 'zoho' }),
      /provider must be "salesforce" or "hubspot"/,
    );
    await assert.rejects(
      stack.ctx.connect.begin({ provider: 'hubspot', returnTo: 'https://evil.example/' }),
      /returnTo must be a path/,
    );
    await assert.rejects(
      stack.ctx.connect.begin({ provider: 'hubspot', returnTo: '//evil.example/' }),
      /returnTo must be a path/,
    );
    await assert.rejects(
      stack.ctx.connect.begin({ provider: 'hubspot', reconnect: 'conn_nope' }),
      /no connection conn_nope/,
    );
    assert.match(
      connectBanner(stack.ctx.connect)[1] ?? '',
      /Salesforce in a browser: real accounts need SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET; the sandbox is ready/,
    );
    const ready = stack.ctx.connect.providers();
    assert.deepEqual(
      ready.map((p) => [p.provider, p.ready, p.sandbox, p.missing]),
      [
        ['salesforce', true, true, ['SALESFORCE_CLIENT_ID', 'SALESFORCE_CLIENT_SECRET']],
        ['hubspot', true, true, ['HUBSPOT_CLIENT_ID', 'HUBSPOT_CLIENT_SECRET']],
      ],
    );
  });

  test('with the OAuth apps configured, flows go to the real login hosts with the redirect URL of the region', async (t) => {
    const stack = await startStack(t, {
      env: {
        SALESFORCE_CLIENT_ID: '3MVG9test',
        SALESFORCE_CLIENT_SECRET: 'sf-secret',
        HUBSPOT_CLIENT_ID: 'hs-client',
        HUBSPOT_CLIENT_SECRET: 'hs-secret',
        HUBSPOT_SCOPES: 'oauth crm.objects.contacts.read',
        HUBSPOT_OPTIONAL_SCOPES: 'crm.objects.custom.read',
      },
    });
    assert.equal(stack.ctx.connect.redirectUri(), 'https://eu.crm-proxy.test/oauth/callback');
    const cases: Array<[string | undefined, string]> = [
      ['login.salesforce.com', 'https://login.salesforce.com'],
      ['test.salesforce.com', 'https://test.salesforce.com'],
      ['https://acme.my.salesforce.com', 'https://acme.my.salesforce.com'],
      ['acme--dev.sandbox.my.salesforce.com', 'https://acme--dev.sandbox.my.salesforce.com'],
    ];
    for (const [loginHost, origin] of cases) {
      const { authorizeUrl } = await stack.ctx.connect.begin({ provider: 'salesforce', loginHost });
      const u = new URL(authorizeUrl);
      assert.equal(`${u.origin}${u.pathname}`, `${origin}/services/oauth2/authorize`);
      assert.equal(u.searchParams.get('client_id'), '3MVG9test');
      assert.equal(u.searchParams.get('scope'), 'api refresh_token id');
      assert.equal(u.searchParams.get('redirect_uri'), 'https://eu.crm-proxy.test/oauth/callback');
    }
    // The client secret goes to the login host: only Salesforce's own hosts are accepted.
    for (const bad of [
      'https://evil.example',
      'http://login.salesforce.com',
      'https://login.salesforce.com.evil.example',
      'https://acme.my.salesforce.com:8443',
      'https://acme.my.salesforce.com/path',
    ])
      await assert.rejects(
        stack.ctx.connect.begin({ provider: 'salesforce', loginHost: bad }),
        /not a Salesforce login host|not a host or URL/,
        bad,
      );
    // `serve` prints the redirect URL and what each CRM still needs.
    assert.deepEqual(connectBanner(stack.ctx.connect), [
      "  OAuth redirect URL (paste it into the CRM app's settings): https://eu.crm-proxy.test/oauth/callback",
      '  Connect Salesforce in a browser: real accounts ready; the sandbox is ready',
      '  Connect HubSpot in a browser: real accounts ready; the sandbox is ready',
    ]);
    const hs = new URL((await stack.ctx.connect.begin({ provider: 'hubspot', sandbox: false })).authorizeUrl);
    assert.equal(`${hs.origin}${hs.pathname}`, 'https://app.hubspot.com/oauth/authorize');
    assert.equal(hs.searchParams.get('scope'), 'oauth crm.objects.contacts.read');
    assert.equal(hs.searchParams.get('optional_scope'), 'crm.objects.custom.read');
  });
});
