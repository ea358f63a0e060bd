import type { AddressInfo } from 'node:net';
import { buildApp } from './app.ts';
import { type Config, checkConfig } from './config/index.ts';
import { type AppContext, type ContextOverrides, createContext } from './context.ts';
import type { ApiApp } from './http/routes/types.ts';
import { type MetricsListener, startMetricsListener } from './metrics-listener.ts';

export interface RunningService {
  app: ApiApp;
  ctx: AppContext;
  /** `http://host:port` that reaches the service from this machine (loopback for a wildcard host). */
  baseUrl: string;
  /** The address really listened on, e.g. `0.0.0.0:8080` (all interfaces) or `127.0.0.1:8080`. */
  listening: string;
  /** Where /metrics is served (its own listener); undefined when metrics are off. */
  metricsUrl: string | undefined;
  /** Stops accepting connections, lets in-flight requests finish, then closes the store. */
  close(): Promise<void>;
}

export async function startService(
  config: Config,
  overrides: ContextOverrides = {},
): Promise<RunningService> {
  // loadConfig checks this already; a Config built by hand, or sandbox clients passed in, must not bypass it.
  checkConfig({ ...config, sandbox: config.sandbox || overrides.sandboxes !== undefined });
  const ctx = await createContext(config, overrides);
  const app = buildApp(ctx);
  let metricsListener: MetricsListener | undefined;
  try {
    await app.listen({ port: config.port, host: config.host });
    if (ctx.metrics !== null) metricsListener = await startMetricsListener(ctx.metrics, config.metrics);
  } catch (err) {
    await app.close();
    await ctx.close();
    throw err;
  }
  // Resume jobs an earlier process left running (their lease expired), and keep sweeping.
  ctx.jobs.start();
  const { port } = app.server.address() as AddressInfo;
  const { host } = config;
  const bracketed = host.includes(':') ? `[${host}]` : host;
  const baseUrl = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : bracketed}:${port}`;
  let closing: Promise<void> | undefined;
  // Without a public URL, connect links and the OAuth redirect URL use the address really listened on.
  ctx.connect.useListenAddress(baseUrl);
  return {
    app,
    ctx,
    baseUrl,
    listening: `${bracketed}:${port}`,
    metricsUrl: metricsListener?.url,
    close() {
      closing ??= (async () => {
        // Fastify's close waits for in-flight requests (idle keep-alive sockets are closed at once).
        await app.close();
        await metricsListener?.close();
        await ctx.close();
      })();
      return closing;
    },
  };
}

/** SIGTERM / SIGINT: run `close` (in-flight requests finish); a second signal, or 30 seconds, exits at once. */
export function onShutdownSignal(close: () => Promise<void>, log: (msg: string) => void): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    log(`${signal}: finishing in-flight requests, then stopping`);
    const timer = setTimeout(() => {
      log('shutdown timed out; exiting');
      process.exit(1);
    }, 30_000);
    timer.unref();
    close().then(
      () => {
        clearTimeout(timer);
        process.exitCode ??= 0;
      },
      (err: unknown) => {
        log(`shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
