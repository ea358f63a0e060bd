// The code exchange of the connect flow through the HTTP API. Sign-in codes are bound to their flow,
// for both CRMs: a code already redeemed, or a fresh code of one flow redeemed with another flow's
// state and cookie (PKCE), ends on a 400 `code_refused` page. A failing token endpoint or check call
// ends on a 502 page. None of them creates a connection.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { beginFlow, callback, consent, runFlow } from './connect-helpers.ts';

const stateOf = (authorizeUrl: string) => new URL(authorizeUrl).searchParams.get('state') ?? '';

for (const provider of ['salesforce', 'hubspot'] as const) {
  describe(`${provider} authorization codes`, () => {
    test('the authorize URL carries an S256 PKCE challenge', async (t) => {
      const stack = await startStack(t);
      const flow = await beginFlow(stack, { provider });
      const url = new URL(flow.authorizeUrl);
      assert.match(url.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    });

    test('a reused code, and a code of another flow, are refused with a 400 naming why', async (t) => {
      const stack = await startStack(t);
      const count = (await stack.ctx.connections.list()).length;

      // Reused: a code already redeemed by one flow, presented with another flow's valid state.
      const first = await beginFlow(stack, { provider });
      const firstBack = await consent(first.authorizeUrl, 'allow');
      assert.equal((await callback(stack, firstBack, first.cookie)).outcome, 'connected');
      const second = await beginFlow(stack, { provider });
      const reused = new URL(firstBack);
      reused.searchParams.set('state', stateOf(second.authorizeUrl));
      const reusedPage = await callback(stack, reused, second.cookie);
      assert.equal(reusedPage.status, 400);
      assert.equal(reusedPage.outcome, 'code_refused');
      assert.match(reusedPage.html, /already used, has expired/);

      // Injected: a fresh code of the victim's flow, redeemed with the attacker's state and cookie.
      const victim = await beginFlow(stack, { provider });
      const victimBack = await consent(victim.authorizeUrl, 'allow');
      const attacker = await beginFlow(stack, { provider });
      const injected = new URL(victimBack);
      injected.searchParams.set('state', stateOf(attacker.authorizeUrl));
      const injectedPage = await callback(stack, injected, attacker.cookie);
      assert.equal(injectedPage.status, 400);
      assert.equal(injectedPage.outcome, 'code_refused');
      assert.match(injectedPage.html, /another sign-in flow/);
      assert.equal((await stack.ctx.connections.list()).length, count + 1);
    });
  });
}

describe('code exchange failures', () => {
  test('a failing token endpoint and a failing check call each end on a page and create nothing', async (t) => {
    const stack = await startStack(t);
    const count = (await stack.ctx.connections.list()).length;

    // The token endpoint fails.
    stack.sf.realism.script([{ kind: 'error503', match: 'oauth.token.authorization_code', times: 10 }]);
    const failing = await beginFlow(stack, { provider: 'salesforce' });
    const exchangePage = await runFlow(stack, failing);
    assert.equal(exchangePage.status, 502);
    assert.equal(exchangePage.outcome, 'exchange_failed');
    assert.match(exchangePage.html, /status 503/);
    stack.sf.realism.clearFaults();

    // The token endpoint works, the check call with the new tokens does not.
    stack.sf.realism.script([{ kind: 'error500', match: 'oauth.identity', times: 10 }]);
    const checkPage = await runFlow(stack, await beginFlow(stack, { provider: 'salesforce' }));
    assert.equal(checkPage.status, 502);
    assert.equal(checkPage.outcome, 'check_failed');
    assert.match(checkPage.html, /could not make a call/);
    stack.sf.realism.clearFaults();

    stack.hs.realism.script([{ kind: 'error500', match: 'oauth.tokenInfo', times: 10 }]);
    const hsCheck = await runFlow(stack, await beginFlow(stack, { provider: 'hubspot' }));
    assert.equal(hsCheck.outcome, 'check_failed');
    stack.hs.realism.clearFaults();

    assert.equal((await stack.ctx.connections.list()).length, count);
  });
});
