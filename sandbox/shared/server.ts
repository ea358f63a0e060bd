import AjvCompiler from '@fastify/ajv-compiler';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { CallAccounting } from './accounting.ts';
import { controlOnLoopback } from './loopback.ts';
import { FAULT_KINDS, type FaultKind, Realism, type RealismConfig, type ScriptedFault } from './realism.ts';
import { enforceUriLimits, MAX_URI_AND_HEADERS_BYTES, NODE_MAX_HEADER_SIZE } from './uri-limits.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Call-accounting kind of the route, e.g. `rest.query`. Routes without one are counted as `other`. */
    kind?: string;
    /** Skip accounting, latency and faults (control routes, static pages). */
    uncounted?: boolean;
  }
  interface FastifyRequest {
    /** Kind under which this call was counted. */
    callKind: string;
    /** A `drop_answer` fault: the handler runs, then the connection is destroyed instead of answering. */
    dropAnswer: boolean;
  }
}

/** Prefix of the control API every sandbox exposes for tests and benchmarks. */
export const CONTROL_PREFIX = '/__sandbox';

export interface SandboxAppOptions {
  /** Shown in logs and in the control API. */
  name: string;
  realism?: Partial<RealismConfig>;
  /**
   * Sends the provider's own answer for an injected error fault (`error500`, `error503`, `lock`,
   * `rateLimit`, `expireToken`) in the CRM's wire format. Returning `undefined` sends nothing and lets
   * the call go on to its handler (which may then fail per record, as Salesforce does for row locks).
   */
  renderFault: (fault: ErrorFault, request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
  logger?: boolean;
  /** Largest request body accepted (bulk CSV uploads are large). */
  bodyLimit?: number;
  /** Rewrites each request URL before routing and before any hook sees it (path tolerance). */
  rewriteUrl?: (url: string) => string;
}

export interface SandboxCore {
  app: FastifyInstance;
  realism: Realism;
  accounting: CallAccounting;
}

/**
 * One Ajv for every sandbox app in the process (Fastify makes one per app by default): a new Ajv
 * compiles its meta-schema before the first route schema, about 0.1 s of CPU per app.
 */
const VALIDATORS = AjvCompiler();

/**
 * A Fastify app with the machinery both sandboxes share: call accounting, latency, fault
 * injection and the control API under `/__sandbox`. The provider adds its own routes and may add
 * control routes under the same prefix.
 */
export function createSandboxApp(options: SandboxAppOptions): SandboxCore {
  const app = Fastify({
    logger: options.logger ?? false,
    schemaController: { compilersFactory: { buildValidator: VALIDATORS } },
    bodyLimit: options.bodyLimit ?? 150 * 1024 * 1024,
    forceCloseConnections: true,
    http: { maxHeaderSize: NODE_MAX_HEADER_SIZE },
    // Path parameters (an external id in an upsert URL) are as long as the URL allows, as at the CRMs.
    routerOptions: { maxParamLength: MAX_URI_AND_HEADERS_BYTES },
    ...(options.rewriteUrl !== undefined
      ? { rewriteUrl: (req: { url?: string }) => options.rewriteUrl?.(req.url ?? '/') ?? '/' }
      : {}),
  });
  const realism = new Realism(options.realism);
  const accounting = new CallAccounting();
  // A call a `slow` fault holds never holds the sandbox's close.
  app.addHook('preClose', async () => realism.endSlowCalls());
  enforceUriLimits(app, accounting);
  controlOnLoopback(app, CONTROL_PREFIX);
  app.decorateRequest('callKind', '');
  app.decorateRequest('dropAnswer', false);
  // The answer is ready, so the handler has applied the call: the client never gets to know.
  app.addHook('onSend', async (request, reply) => {
    if (!request.dropAnswer) return;
    request.raw.socket.destroy();
    reply.hijack();
  });

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (config.uncounted || request.url.startsWith(CONTROL_PREFIX)) return;
    const kind = config.kind ?? (request.routeOptions.url === undefined ? 'unknown' : 'other');
    const answered = await runCall({ realism, accounting }, request, reply, kind, (fault) =>
      options.renderFault(fault, request, reply),
    );
    // An async hook that returns the reply stops the call there; returning nothing lets it go on.
    if (answered) return reply;
  });

  registerControlRoutes(app, options.name, realism, accounting);
  return { app, realism, accounting };
}

/** Error faults a provider renders in its own wire format (`drop`, `drop_answer`, `slow` are handled here). */
export type ErrorFault = Exclude<FaultKind, 'drop' | 'drop_answer' | 'slow'>;

/**
 * Counts one call under `kind`, applies latency and the next fault: `drop` destroys the
 * connection, `drop_answer` lets the call be handled and destroys the connection in place of its
 * answer (the `onSend` hook), `slow` holds the call back, and the error faults go to `render`, which answers in
 * the CRM's format or returns `undefined` to let the call go on. True when the call was answered.
 * The shared hook runs it for every route; routes whose kind depends on the body (the OAuth token
 * endpoints' grant type) mark themselves `uncounted` and run it themselves.
 */
export async function runCall(
  core: Pick<SandboxCore, 'realism' | 'accounting'>,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: string,
  render: (fault: ErrorFault) => FastifyReply | undefined,
): Promise<boolean> {
  request.callKind = kind;
  core.accounting.record(kind);
  await core.realism.callDelay();
  const fault = core.realism.nextFault(kind);
  if (fault === null) return false;
  if (fault === 'drop') {
    request.raw.socket.destroy();
    reply.hijack();
    return true;
  }
  if (fault === 'drop_answer') {
    request.dropAnswer = true;
    return false;
  }
  if (fault === 'slow') {
    await core.realism.slowDelay();
    return false;
  }
  return render(fault) !== undefined;
}

function registerControlRoutes(
  app: FastifyInstance,
  name: string,
  realism: Realism,
  accounting: CallAccounting,
): void {
  const p = CONTROL_PREFIX;
  app.get(`${p}`, async () => ({
    sandbox: name,
    routes: [
      'GET /__sandbox/calls',
      'DELETE /__sandbox/calls',
      'GET /__sandbox/realism',
      'PATCH /__sandbox/realism',
      'GET /__sandbox/faults',
      'POST /__sandbox/faults',
      'DELETE /__sandbox/faults',
      'POST /__sandbox/busy',
    ],
    faultKinds: FAULT_KINDS,
  }));
  app.get(`${p}/calls`, async () => accounting.snapshot());
  app.delete(`${p}/calls`, async (_req, reply) => {
    accounting.reset();
    return reply.code(204).send();
  });
  app.get(`${p}/realism`, async () => realism.config);
  app.patch<{ Body: Partial<RealismConfig> }>(
    `${p}/realism`,
    {
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            latencyMs: { type: 'number', minimum: 0 },
            latencyJitterMs: { type: 'number', minimum: 0 },
            perRecordMs: { type: 'number', minimum: 0 },
            slowMs: { type: 'number', minimum: 0 },
            randomFaultRate: { type: 'number', minimum: 0, maximum: 1 },
            randomFaultKinds: { type: 'array', items: { enum: [...FAULT_KINDS] } },
            seed: { type: 'integer' },
          },
        },
      },
    },
    async (req) => realism.update(req.body),
  );
  app.get(`${p}/faults`, async () => ({ faults: realism.pendingFaults() }));
  app.post<{ Body: { faults: ScriptedFault[] } }>(
    `${p}/faults`,
    {
      schema: {
        body: {
          type: 'object',
          required: ['faults'],
          additionalProperties: false,
          properties: {
            faults: {
              type: 'array',
              items: {
                type: 'object',
                required: ['kind'],
                additionalProperties: false,
                properties: {
                  kind: { enum: [...FAULT_KINDS] },
                  match: { type: 'string' },
                  times: { type: 'integer', minimum: 1 },
                  skip: { type: 'integer', minimum: 0 },
                },
              },
            },
          },
        },
      },
    },
    async (req) => {
      realism.script(req.body.faults);
      return { faults: realism.pendingFaults() };
    },
  );
  app.delete(`${p}/faults`, async (_req, reply) => {
    realism.clearFaults();
    return reply.code(204).send();
  });
  // Holds the sandbox's thread for `ms` without yielding, as a long synchronous save or parse
  // would: what runs on the same thread waits, what runs elsewhere does not.
  app.post<{ Body: { ms: number } }>(
    `${p}/busy`,
    {
      schema: {
        body: {
          type: 'object',
          required: ['ms'],
          additionalProperties: false,
          properties: { ms: { type: 'integer', minimum: 1, maximum: 60_000 } },
        },
      },
    },
    async (req) => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, req.body.ms);
      return { busyMs: req.body.ms };
    },
  );
}

export interface ListenOptions {
  port?: number;
  host?: string;
}

/** Starts listening and returns the base URL (`http://127.0.0.1:PORT`). Port 0 picks a free port. */
export async function listen(app: FastifyInstance, options: ListenOptions = {}): Promise<string> {
  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 0, host });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('sandbox is not listening on TCP');
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${address.port}`;
}
