import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { settingsOf } from '../../src/providers/registry.ts';
import { salesforceProvider } from '../../src/providers/salesforce/index.ts';
import { type Stack, startStack } from '../helpers/stack.ts';
import type { WriteAnswer } from './sf-writes-helpers.ts';

const sfId = (i: number) => `001${i.toString(36).padStart(12, '0')}AAA`;

/** Sets the sandbox org's daily API usage (what `Sforce-Limit-Info` and `/limits` report next). */
async function setUsage(s: Stack, used: number, daily = 100_000): Promise<void> {
  const response = await fetch(`${s.sf.url}/__sandbox/limits`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_requests_used: used, daily_api_requests: daily }),
  });
  assert.equal(response.status, 200, await response.text());
}

/** One call through the service, so it sees the org's usage on a fresh answer. */
async function touch(s: Stack): Promise<void> {
  const answer = await s.api('/v1/object/soql', { body: { data: 'SELECT Id FROM Account LIMIT 1' } });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
}

const records = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ Name: `${prefix} ${i}` }));

/** `[interface, reason, percent left or undefined]` of an answer's X-CRM-Proxy-Interface. */
function planOf(header: string | null): [string, string, number | undefined] {
  const m = /^(collections|bulk2); reason=([a-z0-9%-]+)$/.exec(header ?? '');
  assert.ok(m !== null, `X-CRM-Proxy-Interface: ${header}`);
  const pct = /^allowance-(\d+)%-left$/.exec(m[2] ?? '')?.[1];
  return [m[1] ?? '', m[2] ?? '', pct === undefined ? undefined : Number(pct)];
}

test('Salesforce write plan: the fastest plan with plenty of allowance, the most frugal near the limit, a forced one on request', async (t) => {
  // The service's clock, moved forward to make the last allowance seen stale.
  let offsetMs = 0;
  const s = await startStack(t, { overrides: { clock: { now: () => Date.now() + offsetMs } } });
  const count = (kind: string) => s.sf.accounting.count(kind);

  await t.test('no answer seen yet: /limits is asked once, and 29 % left takes Bulk API 2.0', async () => {
    await setUsage(s, 70_000);
    s.sf.accounting.reset();
    // Delete needs no describe: the plan is the connection's first CRM call.
    const answer = await s.api<WriteAnswer>('/v1/object/delete', {
      body: { data: { ids: Array.from({ length: 2_500 }, (_, i) => sfId(i)) } },
    });
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    const [via, , left] = planOf(answer.headers.get('x-crm-proxy-interface'));
    assert.equal(via, 'bulk2');
    assert.equal(left, 29);
    assert.equal(count('rest.limits'), 1);
    assert.equal(count('bulk2.createJob'), 1);
    assert.equal(answer.body.data.length, 2_500);
  });

  await t.test('plenty of allowance: 2 500 records go through sObject Collections', async () => {
    await setUsage(s, 1_000);
    await touch(s);
    s.sf.accounting.reset();
    const answer = await s.api<WriteAnswer>('/v1/object/insert/Account', {
      body: { data: records(2_500, 'Plenty') },
    });
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    const [via, , left] = planOf(answer.headers.get('x-crm-proxy-interface'));
    assert.equal(via, 'collections');
    assert.equal(left, 98);
    assert.equal(count('collections.create'), 13);
    assert.equal(count('bulk2.createJob'), 0);
    // The answer itself refreshed the allowance: no /limits call.
    assert.equal(count('rest.limits'), 0);
    assert.ok(answer.body.data.every((r) => r.success));
  });

  await t.test('plenty of allowance, Bulk API 2.0 forced by the request header', async () => {
    s.sf.accounting.reset();
    const answer = await s.api<WriteAnswer>('/v1/object/insert/Account', {
      headers: { 'x-crm-proxy-interface': 'bulk2' },
      body: { data: records(2_500, 'Forced bulk') },
    });
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.equal(answer.headers.get('x-crm-proxy-interface'), 'bulk2; reason=requested');
    assert.equal(count('bulk2.createJob'), 1);
    assert.equal(count('collections.create'), 0);
  });

  await t.test('near the limit: 2 500 records go through Bulk API 2.0', async () => {
    await setUsage(s, 96_000);
    await touch(s);
    s.sf.accounting.reset();
    const answer = await s.api<WriteAnswer>('/v1/object/insert/Account', {
      body: { data: records(2_500, 'Frugal') },
    });
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    const [via, , left] = planOf(answer.headers.get('x-crm-proxy-interface'));
    assert.equal(via, 'bulk2');
    assert.equal(left, 3);
    assert.equal(count('bulk2.createJob'), 1);
    assert.equal(count('collections.create'), 0);
    assert.ok(answer.body.data.every((r) => r.success));
  });

  await t.test('near the limit, sObject Collections forced by the request header', async () => {
    s.sf.accounting.reset();
    const answer = await s.api<WriteAnswer>('/v1/object/insert/Account', {
      headers: { 'x-crm-proxy-interface': 'collections' },
      body: { data: records(2_500, 'Forced collections') },
    });
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.equal(answer.headers.get('x-crm-proxy-interface'), 'collections; reason=requested');
    assert.equal(count('collections.create'), 13);
    assert.equal(count('bulk2.createJob'), 0);
  });

  await t.test(
    'near the limit, under the bulk threshold: Collections, which are also the most frugal',
    async () => {
      const answer = await s.api<WriteAnswer>('/v1/object/insert/Account', {
        body: { data: records(10, 'Small') },
      });
      assert.equal(answer.status, 200, answer.text.slice(0, 300));
      assert.equal(answer.headers.get('x-crm-proxy-interface'), 'collections; reason=under-2000-records');
    },
  );

  await t.test('an allowance last seen more than 5 minutes ago is read again from /limits', async () => {
    // The org's other integrations stopped: 60 % is left now, but the service last saw 4 %.
    await setUsage(s, 40_000);
    offsetMs += 5 * 60_000 + 1_000;
    s.sf.accounting.reset();
    const answer = await s.api<WriteAnswer>('/v1/object/delete', {
      body: { data: { ids: Array.from({ length: 2_500 }, (_, i) => sfId(i)) } },
    });
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.equal(answer.headers.get('x-crm-proxy-interface'), 'collections; reason=allowance-59%-left');
    assert.equal(count('rest.limits'), 1);
    assert.equal(count('bulk2.createJob'), 0);
  });
});

test('CRM_PROXY_SALESFORCE_FRUGAL_BELOW: a share from 0 to 1, named when wrong', () => {
  const base = { CRM_PROXY_SANDBOX: 'true' };
  assert.equal(settingsOf(loadConfig(base).providers, salesforceProvider).frugalBelow, undefined);
  assert.equal(
    settingsOf(
      loadConfig({ ...base, CRM_PROXY_SALESFORCE_FRUGAL_BELOW: '0.2' }).providers,
      salesforceProvider,
    ).frugalBelow,
    0.2,
  );
  for (const bad of ['1.5', '-0.1', 'half']) {
    assert.throws(
      () => loadConfig({ ...base, CRM_PROXY_SALESFORCE_FRUGAL_BELOW: bad }),
      /CRM_PROXY_SALESFORCE_FRUGAL_BELOW must be a share/,
    );
  }
});
