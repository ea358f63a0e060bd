import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WriteAnswer } from '../domain/operations.ts';
import { ApiError, toErrorBody } from '../errors/index.ts';
import {
  IDEMPOTENCY_HEADER,
  nothingApplied,
  parseIdempotencyKey,
  requestHash,
  type StoredAnswer,
} from '../jobs/idempotency.ts';
import { jobView, newJobId } from '../jobs/view.ts';
import { type BatchWrite, runBatchWrite, sizeOf } from '../operations/writes.ts';
import { principalOf } from './plugins/auth.ts';
import { releaseBody } from './plugins/body-parser.ts';
import type { RouteServices } from './routes/types.ts';

/** Writes of more records than one CRM call carries run as jobs, so a lost answer can be looked up. */
const JOB_THRESHOLD = 200;

/** RFC 7240: `Prefer: respond-async` (among other preferences, any case). */
function prefersAsync(request: FastifyRequest): boolean {
  const raw = request.headers.prefer;
  const text = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  return text.split(',').some((p) => p.split(';')[0]?.trim().toLowerCase() === 'respond-async');
}

function fingerprint(request: FastifyRequest): string {
  const iface = request.headers['x-crm-proxy-interface'];
  return requestHash({
    method: request.method,
    path: request.url,
    body: request.body,
    headers: {
      'x-crm-proxy-interface': Array.isArray(iface) ? iface.join(',') : iface,
      prefer: prefersAsync(request) ? 'respond-async' : undefined,
    },
  });
}

/** Key of the stored body of a pass-through answer: its bytes, base64. */
const B64 = '__crm_proxy_body_base64';

/** Sends a stored answer (a pass-through's body as its bytes); a replay says so. */
function answered(reply: FastifyReply, answer: StoredAnswer, replayed = false): unknown {
  reply.code(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  if (replayed) reply.header('idempotent-replayed', 'true');
  const stored = answer.body as Record<string, string> | null;
  const bytes = stored !== null && typeof stored === 'object' && B64 in stored ? stored[B64] : undefined;
  return bytes === undefined ? answer.body : Buffer.from(bytes, 'base64');
}

/**
 * A keyed write that is not a job: the key is held while `run` runs and its answer stored even if
 * the client left; a failure that applied nothing releases the key so a retry runs it again.
 */
async function keyedRun(
  ctx: RouteServices,
  request: FastifyRequest,
  reply: FastifyReply,
  key: string,
  hash: string,
  run: () => Promise<StoredAnswer>,
): Promise<unknown> {
  const { token } = principalOf(request);
  const claim = await ctx.idempotency.claim(token.id, key, hash, null);
  if (claim.kind === 'replay') return answered(reply, claim.answer, true);
  let answer: StoredAnswer;
  try {
    answer = await ctx.idempotency.holding(token.id, key, run);
  } catch (error) {
    const { status, body } = toErrorBody(error, request.id);
    if (nothingApplied(status)) await ctx.idempotency.release(token.id, key).catch(() => {});
    else {
      const headers = error instanceof ApiError ? error.headers : {};
      await ctx.idempotency.complete(token.id, key, { status, headers, body }).catch(() => {});
    }
    throw error;
  }
  await ctx.idempotency.complete(token.id, key, answer);
  return answered(reply, answer);
}

/**
 * A checked insert, update or delete: a job when asked async, keyed, or over JOB_THRESHOLD records
 * (a synchronous one waits for it; the job outlives the client); otherwise run directly.
 */
export async function batchWrite(
  ctx: RouteServices,
  request: FastifyRequest,
  reply: FastifyReply,
  write: BatchWrite,
): Promise<unknown> {
  const { token, connection } = principalOf(request);
  const key = parseIdempotencyKey(request.headers[IDEMPOTENCY_HEADER]);
  const async = prefersAsync(request);
  if (!async && key === undefined && sizeOf(write) <= JOB_THRESHOLD) {
    // The body's place among large bodies goes to the next request, not held for the CRM call.
    releaseBody(request);
    return writeAnswer(reply, await runBatchWrite(ctx.operations, connection, write));
  }
  const jobId = newJobId();
  if (key !== undefined) {
    const claim = await ctx.idempotency.claim(token.id, key, fingerprint(request), jobId);
    if (claim.kind === 'replay') return answered(reply, claim.answer, true);
  }
  let submitted: Awaited<ReturnType<RouteServices['jobs']['submit']>>;
  try {
    submitted = await ctx.jobs.submit({
      id: jobId,
      tokenId: token.id,
      connectionId: connection.id,
      requestId: request.id,
      write,
      connection,
    });
  } catch (error) {
    if (key !== undefined) await ctx.idempotency.release(token.id, key).catch(() => {});
    throw error;
  }
  const { job, done } = submitted;
  // The job holds (or re-reads from the store) the records it needs: the request drops its body.
  request.body = undefined;
  releaseBody(request);
  if (async) {
    const headers = {
      location: `/v1/jobs/${job.id}`,
      'preference-applied': 'respond-async',
      'x-crm-proxy-job-id': job.id,
    };
    const view = jobView(job);
    if (key !== undefined)
      await ctx.idempotency.complete(token.id, key, { status: 202, headers, body: view });
    reply.code(202).headers(headers);
    return view;
  }
  reply.header('x-crm-proxy-job-id', job.id);
  // Returned, not awaited, so this call's `write` is not kept alive while the job runs.
  return done.then((outcome) => {
    if (!outcome.ok) throw outcome.error;
    return writeAnswer(reply, outcome.answer);
  });
}

/** A write's answer body; `X-CRM-Proxy-Interface: bulk2; reason=…` names the interface used and why. */
function writeAnswer(reply: FastifyReply, answer: WriteAnswer): { data: unknown } {
  if (answer.via !== undefined) {
    const reason = answer.reason === undefined ? '' : `; reason=${answer.reason}`;
    reply.header('x-crm-proxy-interface', `${answer.via}${reason}`);
  }
  return { data: answer.data };
}

/** A write that is never a job (upsert, add custom field): 200 with what `run` gives, keyed if asked. */
export async function directWrite(
  ctx: RouteServices,
  request: FastifyRequest,
  reply: FastifyReply,
  run: () => Promise<Omit<StoredAnswer, 'status'>>,
): Promise<unknown> {
  const key = parseIdempotencyKey(request.headers[IDEMPOTENCY_HEADER]);
  const direct = async (): Promise<StoredAnswer> => ({ status: 200, ...(await run()) });
  if (key === undefined) return answered(reply, await direct());
  return keyedRun(ctx, request, reply, key, fingerprint(request), direct);
}

/** Reads a stream whole, refusing past `limit` bytes. */
async function readAll(stream: Readable, limit: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Request bodies and undici's answers are byte streams: their chunks are Buffers.
  for await (const b of stream as AsyncIterable<Buffer>) {
    size += b.length;
    if (size > limit) {
      stream.destroy();
      throw new ApiError(
        'body_too_large',
        `${what} is larger than ${limit} bytes, the most a pass-through request with an Idempotency-Key can store. Send it without the key.`,
      );
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/**
 * A keyed pass-through POST or PATCH: both bodies are read whole (within the JSON body limit) so the
 * request can be fingerprinted and the CRM's answer stored for a retry.
 */
export async function keyedPassthrough(
  ctx: RouteServices,
  request: FastifyRequest,
  reply: FastifyReply,
  key: string,
  body: Readable | undefined,
  send: (
    body: Readable | undefined,
  ) => Promise<{ status: number; headers: Record<string, string | string[]>; body: Readable | Buffer }>,
): Promise<unknown> {
  const sent = body === undefined ? Buffer.alloc(0) : await readAll(body, ctx.bodyLimit, 'The request body');
  const contentType = request.headers['content-type'];
  const hash = requestHash({
    method: request.method,
    path: request.raw.url ?? request.url,
    body: createHash('sha256').update(sent).digest('hex'),
    headers: { 'content-type': Array.isArray(contentType) ? contentType.join(',') : contentType },
  });
  const answer = await keyedRun(ctx, request, reply, key, hash, async () => {
    const result = await send(sent.length === 0 ? undefined : Readable.from([sent]));
    const bytes = Buffer.isBuffer(result.body)
      ? result.body
      : await readAll(result.body, ctx.bodyLimit, "The CRM's answer");
    const kept: Record<string, string> = {};
    for (const [name, value] of Object.entries(result.headers)) {
      // The length is the stored body's own; framing headers are the server's to set.
      if (['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name.toLowerCase()))
        continue;
      kept[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return { status: result.status, headers: kept, body: { [B64]: bytes.toString('base64') } };
  });
  return reply.send(answer);
}
