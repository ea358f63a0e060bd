import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { startStack } from '../helpers/stack.ts';
import { answerProblems } from './answer-checks.ts';
import { fuzzConfig } from './fuzz-config.ts';
import { FuzzStats } from './fuzz-stats.ts';
import { LoopDelay } from './loop-delay.ts';
import { watchProcessFaults } from './process-faults.ts';
import { rawRequest } from './raw-http.ts';
import { requestArb } from './request-arbitrary.ts';
import { routesFromOpenApi } from './routes-from-openapi.ts';

/** Longest the service may block its event loop on any one request. */
const LOOP_BUDGET_MS = 1_000;
/** A request with no answer by then is a hang. */
const ANSWER_DEADLINE_MS = 30_000;

/**
 * Property: whatever arrives on whichever route (every route of the OpenAPI document with both a
 * Salesforce and a HubSpot token, plus the public ones), the service answers; never with a 5xx
 * (the sandboxes run without injected faults); every error is JSON in the service's shape; no
 * request blocks the event loop for more than a second; nothing crashes. `npm run fuzz` runs it
 * longer (see docs/security-testing.md).
 */
test('fuzz: every route answers hostile requests with a clean 4xx, never a 5xx, a hang or a blocked loop', async (t) => {
  const config = fuzzConfig();
  const s = await startStack(t);
  const openapi = await rawRequest(s.baseUrl, { method: 'GET', path: '/openapi.json' });
  assert.equal(openapi.status, 200);
  const routes = routesFromOpenApi(JSON.parse(openapi.body.toString('utf8')));
  // Every operation, the pass-through's five methods and the four public routes.
  assert.ok(routes.length >= 18, `only ${routes.length} routes in the document`);

  const watcher = watchProcessFaults();
  t.after(() => watcher.stop());
  const loop = new LoopDelay();
  t.after(() => loop.stop());
  const stats = new FuzzStats();
  const requests = fc.oneof(...routes.map((route) => requestArb(route, s.tokens, config.scale)));

  try {
    await fc.assert(
      fc.asyncProperty(requests, async (request) => {
        loop.reset();
        const answer = await rawRequest(s.baseUrl, { ...request, timeoutMs: ANSWER_DEADLINE_MS });
        const delay = loop.maxMs();
        stats.record(request, answer, delay);
        const problems = answerProblems(answer, {
          passThrough: request.route.passThrough,
          head: request.method === 'HEAD',
        });
        if (delay > LOOP_BUDGET_MS) problems.push(`event loop blocked for ${delay.toFixed(0)} ms`);
        if (watcher.faults.length > 0) problems.push(...watcher.faults.splice(0));
        if (problems.length > 0) throw new Error(`${problems.join('; ')}\n  request: ${request.summary}`);
      }),
      {
        seed: config.seed,
        numRuns: config.runs,
        includeErrorInReport: true,
        // Shrinking resends ever smaller variants of a slow failure: minutes. Opt in with FUZZ_SHRINK=1.
        endOnFailure: !config.shrink,
      },
    );
  } finally {
    for (const line of stats.report()) t.diagnostic(line);
  }

  const health = await rawRequest(s.baseUrl, { method: 'GET', path: '/healthz' });
  assert.equal(health.status, 200, 'the service still answers after the run');
  assert.deepEqual(watcher.faults, []);
});
