// /metrics on its own listener, scraped after known traffic through the real HTTP API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { eventually } from '../helpers/wait.ts';

type Labels = Record<string, string>;

/** Sum of the samples of `name` whose labels include `labels` (Prometheus text format). */
function sample(text: string, name: string, labels: Labels = {}): number | undefined {
  let found: number | undefined;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const have: Labels = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) have[l[1] ?? ''] = l[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) found = (found ?? 0) + Number(m[3]);
  }
  return found;
}

test('/metrics counts requests, CRM calls, token refreshes and 429s sent, by route, status class and CRM', async (t) => {
  const now = Date.now();
  const s = await startStack(t, {
    env: {
      CRM_PROXY_METRICS_PORT: '0',
      CRM_PROXY_RATE_LIMIT_PER_SECOND: '1',
      CRM_PROXY_RATE_LIMIT_BURST: '5',
    },
    // Service time stands still, so the rate-limit bucket does not refill between calls.
    overrides: { clock: { now: () => now } },
  });
  assert.ok(s.metricsUrl !== undefined);
  assert.match(s.metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);

  // Known traffic on the Salesforce token: 2 describes, 1 SOQL query after the access token
  // expired (one refresh), 2 more describes, then the 6th request is over the burst (429).
  assert.equal((await s.api('/v1/describe')).status, 200);
  assert.equal((await s.api('/v1/describe')).status, 200);
  assert.ok((await fetch(`${s.sf.url}/__sandbox/tokens/expire`, { method: 'POST' })).ok);
  const query = await s.api('/v1/object/soql', { body: { data: 'SELECT Id FROM Account LIMIT 1' } });
  assert.equal(query.status, 200, query.text);
  assert.equal((await s.api('/v1/describe')).status, 200);
  assert.equal((await s.api('/v1/describe')).status, 200);
  assert.equal((await s.api('/v1/describe')).status, 429);
  // One on the HubSpot token, one with a token that does not exist, one health check.
  const hs = await s.api('/v1/object/get/contacts', {
    token: s.tokens.hubspot,
    body: { data: { ids: ['1'] } },
  });
  assert.notEqual(hs.status, 500);
  assert.equal((await s.api('/v1/describe', { token: 'cp_eu_nope' })).status, 401);
  assert.equal((await fetch(`${s.baseUrl}/healthz`)).status, 200);

  const scrape = await fetch(s.metricsUrl);
  assert.equal(scrape.status, 200);
  assert.match(scrape.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await scrape.text();
  const req = (labels: Labels) => sample(text, 'crm_proxy_http_requests_total', labels);

  assert.equal(req({ route: '/v1/describe', status_class: '2xx', crm: 'salesforce' }), 4);
  assert.equal(req({ route: '/v1/describe', status_class: '4xx', crm: 'salesforce' }), 1);
  assert.equal(req({ route: '/v1/object/soql', method: 'POST', status_class: '2xx', crm: 'salesforce' }), 1);
  assert.equal(req({ route: '/v1/object/get/:object_name', crm: 'hubspot' }), 1);
  assert.equal(req({ route: '/v1/describe', status_class: '4xx', crm: 'none' }), 1);
  assert.equal(req({ route: '/healthz', status_class: '2xx', crm: 'none' }), 1);
  assert.equal(sample(text, 'crm_proxy_rate_limited_sent_total', { crm: 'salesforce' }), 1);
  assert.equal(sample(text, 'crm_proxy_rate_limited_sent_total', { crm: 'hubspot' }), undefined);
  assert.equal(
    sample(text, 'crm_proxy_http_request_duration_seconds_count', {
      route: '/v1/describe',
      crm: 'salesforce',
    }),
    5,
  );

  // The CRM side: one global describe (then cached), one refresh, the query refused once then answered.
  const crm = (labels: Labels) => sample(text, 'crm_proxy_crm_calls_total', labels);
  assert.equal(crm({ crm: 'salesforce', kind: 'describe.global', outcome: '2xx' }), 1);
  assert.equal(crm({ crm: 'salesforce', kind: 'query', outcome: '4xx' }), 1);
  assert.equal(crm({ crm: 'salesforce', kind: 'query', outcome: '2xx' }), 1);
  assert.equal(crm({ crm: 'salesforce', kind: 'oauth.refresh', outcome: '2xx' }), 1);
  assert.equal(sample(text, 'crm_proxy_token_refreshes_total', { crm: 'salesforce', outcome: '2xx' }), 1);
  assert.ok((crm({ crm: 'hubspot' }) ?? 0) >= 1);
  assert.ok((sample(text, 'crm_proxy_crm_call_duration_seconds_count', { crm: 'salesforce' }) ?? 0) >= 3);
  // Process series, event-loop lag among them.
  assert.ok(sample(text, 'crm_proxy_nodejs_eventloop_lag_seconds') !== undefined);
  assert.ok(sample(text, 'crm_proxy_process_resident_memory_bytes') !== undefined);

  // Not on the API port: the load balancer in front never exposes it.
  assert.equal((await fetch(`${s.baseUrl}/metrics`)).status, 404);
});

test('CRM_PROXY_METRICS_TOKEN guards the metrics listener', async (t) => {
  const token = 'metrics-token-0123456789abcdef';
  const s = await startStack(t, { env: { CRM_PROXY_METRICS_PORT: '0', CRM_PROXY_METRICS_TOKEN: token } });
  const url = s.metricsUrl ?? assert.fail('no metrics listener');
  assert.equal((await fetch(url)).status, 401);
  assert.equal(
    (await fetch(url, { headers: { authorization: 'Bearer wrong-token-0123456789abc' } })).status,
    401,
  );
  const ok = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(ok.status, 200);
  assert.match(await ok.text(), /crm_proxy_http_requests_total/);
});

test('without CRM_PROXY_METRICS_PORT there is no metrics listener and no collection', async (t) => {
  const s = await startStack(t);
  assert.equal(s.metricsUrl, undefined);
  assert.equal(s.ctx.metrics, null);
});

test("/metrics counts the CRM's 429s", async (t) => {
  const s = await startStack(t, { env: { CRM_PROXY_METRICS_PORT: '0' } });
  // Another client drains the HubSpot sandbox's 10-second window; the service's call is refused, then retried.
  const limits = await fetch(`${s.hs.url}/__sandbox/rate-limits`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ perTenSeconds: 5 }),
  });
  assert.equal(limits.status, 200);
  let refused = 0;
  s.ctx.client.addHook((event) => {
    if (event.status === 429) refused += 1;
  });
  for (let i = 0; i < 5; i++) {
    const direct = await fetch(`${s.hs.url}/crm/v3/objects/contacts?limit=1`, {
      headers: { authorization: `Bearer ${s.hs.credentials.accessToken}` },
    });
    assert.equal(direct.status, 200);
  }
  const [id] = s.hs.portal.records.list('0-1').map((r) => r.id);
  // The service and the sandbox share the stack's clock: the next window comes without a real wait.
  const answer = await s.clock.fastForward(
    s.api('/v1/object/get/contacts', {
      token: s.tokens.hubspot,
      body: { data: { ids: [id], fields: ['email'] } },
    }),
  );
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.ok(refused >= 1, 'HubSpot refused at least once');

  const text = await (await fetch(s.metricsUrl ?? assert.fail('no metrics listener'))).text();
  assert.equal(sample(text, 'crm_proxy_crm_rate_limited_received_total', { crm: 'hubspot' }), refused);
  // The pacer sends a refused call again once there is room: each refusal is a final 4xx call.
  assert.equal(sample(text, 'crm_proxy_crm_calls_total', { crm: 'hubspot', outcome: '4xx' }), refused);
  assert.equal(
    sample(text, 'crm_proxy_crm_calls_total', { crm: 'hubspot', kind: 'objects.batch.read', outcome: '2xx' }),
    1,
  );
  assert.equal(sample(text, 'crm_proxy_http_requests_total', { crm: 'hubspot', status_class: '2xx' }), 1);
});

test('/metrics counts the outbound retries', async (t) => {
  const s = await startStack(t, { env: { CRM_PROXY_METRICS_PORT: '0' } });
  // The first describe of Lead gets a 503, the retry an answer.
  s.sf.realism.script([{ kind: 'error503', match: 'rest.describe', times: 1 }]);
  const answer = await s.api('/v1/describe/Lead');
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(s.sf.accounting.count('rest.describe'), 2);

  const text = await (await fetch(s.metricsUrl ?? assert.fail('no metrics listener'))).text();
  assert.equal(
    sample(text, 'crm_proxy_crm_retries_total', { crm: 'salesforce', kind: 'describe.object' }),
    1,
  );
  assert.equal(
    sample(text, 'crm_proxy_crm_calls_total', { crm: 'salesforce', kind: 'describe.object', outcome: '2xx' }),
    1,
  );
  assert.equal(sample(text, 'crm_proxy_crm_calls_total', { crm: 'salesforce', outcome: '5xx' }), undefined);
  assert.equal(
    sample(text, 'crm_proxy_crm_call_duration_seconds_count', { crm: 'salesforce', kind: 'describe.object' }),
    2,
  );
});

test('/metrics shows the daily allowance per connection, pacer waits and jobs by state', async (t) => {
  const s = await startStack(t, { env: { CRM_PROXY_METRICS_PORT: '0' } });
  const url = s.metricsUrl ?? assert.fail('no metrics listener');
  const scrape = async () => (await fetch(url)).text();
  const conn = { crm: 'salesforce', connection: s.connectionIds.salesforce };

  // Salesforce's allowance from Sforce-Limit-Info on the last answer: one more uncached call, one more used.
  assert.equal((await s.api('/v1/describe/Account')).status, 200);
  const before = await scrape();
  const used = sample(before, 'crm_proxy_crm_daily_allowance_used', conn) ?? assert.fail('no allowance');
  const left = sample(before, 'crm_proxy_crm_daily_allowance_left', conn);
  assert.ok(used >= 2, `used ${used}`);
  assert.equal(used + (left ?? 0), 100_000, "the sandbox org's daily allowance");
  assert.equal((await s.api('/v1/describe/Contact')).status, 200);
  const after = await scrape();
  assert.equal(sample(after, 'crm_proxy_crm_daily_allowance_used', conn), used + 1);
  assert.equal(sample(after, 'crm_proxy_crm_daily_allowance_left', conn), (left ?? 0) - 1);

  // HubSpot's search allows 5 calls a second: of 7 at once, the pacer holds 2 back.
  const searches = await Promise.all(
    Array.from({ length: 7 }, () =>
      s.api('/v1/object/query/contacts', {
        token: s.tokens.hubspot,
        body: {
          data: {
            filterGroups: [{ filters: [{ propertyName: 'email', operator: 'EQ', value: 'nobody@x.test' }] }],
          },
        },
      }),
    ),
  );
  assert.deepEqual(
    searches.map((a) => a.status),
    Array(7).fill(200),
  );
  const paced = await scrape();
  assert.equal(sample(paced, 'crm_proxy_crm_pacer_waits_total', { crm: 'hubspot', kind: 'search' }), 2);
  assert.ok(
    (sample(paced, 'crm_proxy_crm_pacer_wait_seconds_total', { crm: 'hubspot', kind: 'search' }) ?? 0) > 0,
  );

  // Jobs by state, read from the store at each scrape.
  const jobs = (text: string, state: string) => sample(text, 'crm_proxy_jobs', { state });
  assert.equal(jobs(paced, 'completed'), 0);
  const accepted = await s.api<{ id: string }>('/v1/object/insert/Account', {
    body: { data: [{ Name: 'Metrics job' }] },
    headers: { prefer: 'respond-async' },
  });
  assert.equal(accepted.status, 202);
  assert.ok(
    await eventually(
      async () =>
        (await s.api<{ state: string }>(`/v1/jobs/${accepted.body.id}`, { method: 'GET' })).body.state ===
        'completed',
    ),
    'the job completes',
  );
  const done = await scrape();
  assert.equal(jobs(done, 'completed'), 1);
  assert.equal(jobs(done, 'running'), 0);
  assert.equal(jobs(done, 'queued'), 0);
});
