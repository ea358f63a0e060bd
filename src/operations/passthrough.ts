import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { Connection } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';
import { meterCrmCall } from '../lib/call-context.ts';
import type { CrmAdapter, PassthroughHandler } from '../providers/adapter.ts';
import type { HttpMethod } from '../providers/client/types.ts';
import { bearer } from '../providers/oauth.ts';
import { ProxyBody } from '../proxy/body.ts';
import { type ForwardResponse, TargetUnreachableError } from '../proxy/forwarder.ts';
import { forwardedRequestHeaders, returnedResponseHeaders } from '../proxy/headers.ts';
import { proxyTargets, type ResolvedTarget, resolveTarget } from '../proxy/target.ts';
import { handlerFor, translatingCrmErrors } from './checks.ts';
import type { OperationDeps } from './deps.ts';

export interface PassthroughRequest {
  method: HttpMethod;
  /** The target exactly as it arrived, not percent-decoded. */
  rawTarget: string;
  /** Raw query string with its `?`, or ''. */
  query: string;
  headers: IncomingHttpHeaders;
  body: Readable | undefined;
}

export interface PassthroughAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  /** The CRM's body, still streaming; bytes when it had to be read (a 401 it was decided on). */
  body: Readable | Buffer;
}

/**
 * Pass-through: the target is checked before anything leaves, the request goes to the connection's
 * CRM host with the service's credentials and the allow-listed headers, and the answer streams back as it is.
 */
export async function passthrough(
  deps: OperationDeps,
  connection: Connection,
  req: PassthroughRequest,
): Promise<PassthroughAnswer> {
  const adapter = deps.registry.adapterFor(connection);
  const rules = handlerFor(adapter, 'passthrough');
  const target = resolveTarget(proxyTargets(adapter, connection), req.rawTarget, req.query);
  const headers = forwardedRequestHeaders(req.headers, rules.forwardedHeaders);
  const token = await translatingCrmErrors(adapter, () => deps.tokens.accessToken(connection));
  // No replay copy for a static token, nor for one the CRM just accepted: a 401 then is a revoked
  // session, which a replay rarely saves, and copying large bodies costs CPU.
  const keepsCopy =
    deps.tokens.refreshable(connection.id, token) &&
    !deps.tokens.acceptedWithin(connection.id, token, deps.replay.skipWindowMs);
  const declared = req.headers['content-length'];
  const body = new ProxyBody(
    req.body,
    declared === undefined ? undefined : Number(declared),
    keepsCopy ? { budget: deps.replay.budget } : null,
  );
  if (declared !== undefined && req.body !== undefined) headers['content-length'] = declared;
  const call: ProxyCall = { deps, adapter, rules, connection, method: req.method, target, body };
  try {
    return await attempts(call, headers, token);
  } finally {
    body.release();
  }
}

interface ProxyCall {
  deps: OperationDeps;
  adapter: CrmAdapter;
  rules: PassthroughHandler;
  connection: Connection;
  method: HttpMethod;
  target: ResolvedTarget;
  body: ProxyBody;
}

/** The first attempt, and after a CRM 401 for an expired token one replay with a fresh token. */
async function attempts(
  call: ProxyCall,
  headers: Record<string, string>,
  token: string,
): Promise<PassthroughAnswer> {
  const { deps, adapter, connection, body } = call;
  const first = await send(call, headers, token, body.stream);
  if (first.status !== 401) {
    deps.tokens.accepted(connection.id, token);
    const whole = arrivedWhole(first);
    // Once the answer has been read, an upload the CRM never finished reading is over too.
    if (whole !== undefined) body.abandon();
    else first.body.once('close', () => body.abandon());
    return answer(first, whole ?? first.body);
  }
  // Decide on the 401 from its (small) body: some CRMs say there whether a refresh can help.
  const raw = Buffer.from(await first.body.arrayBuffer());
  const rejected = { status: 401, headers: first.headers, text: decoded(raw, first.headers), attempts: 1 };
  if (!adapter.auth.isExpiredToken(rejected)) return answer(first, raw);
  const replayBody = await body.replay();
  const fresh = await translatingCrmErrors(adapter, () =>
    deps.tokens.refreshAfterRejected(connection, token),
  );
  // No copy kept: the client gets the CRM's 401 and its retry finds the fresh token.
  if (replayBody === null) {
    body.abandon();
    return answer(first, raw, { 'x-crm-proxy-replayed': 'no' });
  }
  const replayHeaders = { ...headers };
  if (replayBody !== undefined) replayHeaders['content-length'] = String(replayBody.length);
  const second = await send(call, replayHeaders, fresh, replayBody);
  if (second.status !== 401) deps.tokens.accepted(connection.id, fresh);
  return answer(second, second.body);
}

async function send(
  call: ProxyCall,
  headers: Record<string, string>,
  token: string,
  payload: Readable | Buffer | undefined,
): Promise<ForwardResponse> {
  const { deps, adapter, rules, connection, method, target, body } = call;
  const authorized = bearer(headers, token);
  const tokenHeaders = rules.tokenHeaders?.(target.path, token);
  if (tokenHeaders !== undefined) Object.assign(authorized, tokenHeaders);
  const forward = async () => {
    const answer = await deps.forwarder.send({ method, url: target.url, headers: authorized, body: payload });
    meterCrmCall(answer.headers);
    return answer;
  };
  try {
    if (rules.pace !== undefined) {
      return await rules.pace(connection.id, target.path, forward, (r) => ({
        status: r.status,
        headers: r.headers,
      }));
    }
    return await forward();
  } catch (error) {
    if (body.failed) {
      throw new ApiError(
        'invalid_body',
        'The request body could not be read to its end (the upload was interrupted).',
      );
    }
    if (error instanceof TargetUnreachableError) {
      const crm = adapter.profile.displayName;
      throw new ApiError(
        'crm_unreachable',
        `${crm} could not be reached (${error.code}). Nothing was answered; retry later.`,
        {
          details: [{ provider: connection.provider, reason: error.code }],
          cause: error,
        },
      );
    }
    throw error;
  }
}

/** Answers at most this large that arrived with their headers are sent as bytes. */
const WHOLE_ANSWER_LIMIT = 64 * 1024;

/**
 * The body as bytes when all of it arrived with the headers, else undefined and it streams. Bytes go
 * out in one write without a stream hop; nothing waits, so an answer still arriving is not held back.
 */
function arrivedWhole(response: Pick<ForwardResponse, 'body' | 'arrived'>): Buffer | undefined {
  const body = response.body;
  if (!response.arrived() || body.readableLength > WHOLE_ANSWER_LIMIT || body.readableObjectMode) {
    return undefined;
  }
  const chunks: Buffer[] = [];
  for (let chunk = body.read() as Buffer | null; chunk !== null; chunk = body.read() as Buffer | null) {
    chunks.push(chunk);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/** The text of a 401 body, undoing a content encoding the client asked for. */
function decoded(raw: Buffer, headers: ForwardResponse['headers']): string {
  const encoding = String(headers['content-encoding'] ?? '').toLowerCase();
  try {
    if (encoding === 'gzip') return gunzipSync(raw).toString('utf8');
    if (encoding === 'deflate') return inflateSync(raw).toString('utf8');
    if (encoding === 'br') return brotliDecompressSync(raw).toString('utf8');
  } catch {
    return '';
  }
  return raw.toString('utf8');
}

function answer(
  response: ForwardResponse,
  body: Readable | Buffer,
  extra?: Record<string, string>,
): PassthroughAnswer {
  const headers = returnedResponseHeaders(response.headers);
  // A body already read is sent whole; the CRM's transfer framing no longer applies.
  if (Buffer.isBuffer(body)) headers['content-length'] = String(body.length);
  if (extra !== undefined) Object.assign(headers, extra);
  return { status: response.status, headers, body };
}
