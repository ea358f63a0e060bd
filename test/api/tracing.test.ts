import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { startStack } from '../helpers/stack.ts';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
}

/** A stand-in OTLP/HTTP collector: keeps the spans of every export it receives. */
/**
 * The headers of every request the service sends to `url`'s origin, as JSON texts (undici's own
 * diagnostics channel sees every request it makes), until the test ends.
 */
function headersSentTo(t: TestContext, url: string): string[] {
  const sent: string[] = [];
  const origin = new URL(url).origin;
  const onCreate = (message: unknown) => {
    const { request } = message as { request: { origin: string; headers: unknown } };
    if (request.origin === origin) sent.push(JSON.stringify(request.headers));
  };
  diagnostics.subscribe('undici:request:create', onCreate);
  t.after(() => diagnostics.unsubscribe('undici:request:create', onCreate));
  return sent;
}

async function startCollector(): Promise<{ url: string; spans: OtlpSpan[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
        };
        for (const r of body.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

test('with a collector configured, a request continues the caller’s trace and its CRM calls carry it on', async (t) => {
  const collector = await startCollector();
  t.after(() => collector.close());
  const s = await startStack(t, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });

  const sent = headersSentTo(t, s.sf.url);

  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpan = '00f067aa0ba902b7';
  const answer = await s.api('/v1/object/soql', {
    body: { data: 'SELECT Id, Name FROM Account LIMIT 1' },
    headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 200));
  assert.ok(sent.length > 0, 'the query called the Salesforce sandbox');
  assert.ok(
    sent.every((h) => h.includes(`00-${traceId}-`)),
    'every CRM call carried the trace',
  );

  await s.close(); // shutting down sends the spans still pending
  const server = collector.spans.find((x) => x.traceId === traceId && x.kind === 2);
  assert.ok(server, `a server span of the caller's trace: ${JSON.stringify(collector.spans)}`);
  assert.equal(server.parentSpanId, callerSpan);
  assert.equal(server.name, 'POST /v1/object/soql');
  const clients = collector.spans.filter((x) => x.traceId === traceId && x.kind === 3);
  assert.ok(clients.length > 0 && clients.every((c) => c.parentSpanId === server.spanId));
  // The traceparent each CRM call carried names its own client span.
  for (const c of clients) assert.ok(sent.some((h) => h.includes(`00-${traceId}-${c.spanId}-01`)));
});

test('without a collector nothing is traced and no traceparent goes to the CRM', async (t) => {
  const s = await startStack(t);
  assert.equal(s.ctx.tracing, null);
  const sent = headersSentTo(t, s.sf.url);
  const answer = await s.api('/v1/object/soql', {
    body: { data: 'SELECT Id FROM Account LIMIT 1' },
    headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
  });
  assert.equal(answer.status, 200);
  assert.ok(sent.length > 0 && sent.every((h) => !h.includes('traceparent')));
});

test('a collector URL that is not http(s) is refused with a message naming the variable', () => {
  assert.throws(
    () => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }),
    /OTEL_EXPORTER_OTLP_ENDPOINT must be the http:\/\/ or https:\/\/ base URL/,
  );
  assert.equal(loadConfig({}).tracing, undefined);
  assert.deepEqual(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing, {
    endpoint: 'http://127.0.0.1:4318',
    serviceName: 'crm-proxy',
  });
});
