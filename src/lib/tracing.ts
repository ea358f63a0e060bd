// OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set: a server span per API request (continuing
// the caller's `traceparent`), a client span per CRM call. No body, query string or credential is recorded.
import {
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TraceScope } from './call-context.ts';

export interface TracingOptions {
  /** The collector's base URL; spans are sent to `<endpoint>/v1/traces`. */
  endpoint: string;
  serviceName: string;
}

/** One API request's span: `scope` goes into the call context, `end` closes it with the answer. */
export interface RequestTrace {
  scope: TraceScope;
  end(status: number, route: string | undefined): void;
}

export interface Tracing {
  startRequest(
    method: string,
    path: string,
    headers: Record<string, string | string[] | undefined>,
  ): RequestTrace;
  close(): Promise<void>;
}

const propagator = new W3CTraceContextPropagator();

export function createTracing(options: TracingOptions): Tracing {
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1_000 })],
  });
  const tracer = provider.getTracer('crm-proxy');

  const scopeOf = (parent: Context): TraceScope => ({
    outbound(method, url) {
      const target = URL.parse(url);
      const span: Span = tracer.startSpan(
        `${method} ${target?.host ?? 'CRM'}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'http.request.method': method,
            ...(target === null ? {} : { 'server.address': target.hostname, 'url.path': target.pathname }),
          },
        },
        parent,
      );
      const headers: Record<string, string> = {};
      propagator.inject(trace.setSpan(parent, span), headers, defaultTextMapSetter);
      return {
        headers,
        end(status, error) {
          if (status !== undefined) span.setAttribute('http.response.status_code', status);
          if (error !== undefined || (status !== undefined && status >= 500))
            span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
  });

  return {
    startRequest(method, path, headers) {
      const incoming = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const span = tracer.startSpan(
        `${method} ${path}`,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
        incoming,
      );
      return {
        scope: scopeOf(trace.setSpan(incoming, span)),
        end(status, route) {
          if (route !== undefined) {
            span.updateName(`${method} ${route}`);
            span.setAttribute('http.route', route);
          }
          span.setAttribute('http.response.status_code', status);
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    close: () => provider.shutdown(),
  };
}
