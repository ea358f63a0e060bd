import { ERROR_CODES } from '../../src/errors/codes.ts';
import { header, type RawAnswer } from './raw-http.ts';

const CODES = new Set<string>(ERROR_CODES);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

/** Problems with the service's error body `{error: {code, message, details}, request_id}`; [] when fine. */
export function errorShapeProblems(answer: RawAnswer): string[] {
  const problems: string[] = [];
  if (!/^application\/json/.test(header(answer, 'content-type') ?? ''))
    problems.push(`content-type ${header(answer, 'content-type')} is not JSON`);
  const parsed = parseJson(answer.body);
  if (!parsed.ok) return [...problems, 'error body is not JSON'];
  const body = parsed.value;
  if (!isRecord(body) || !isRecord(body['error'])) return [...problems, 'no `error` object'];
  const { code, message, details } = body['error'];
  if (typeof code !== 'string' || !CODES.has(code)) problems.push(`unknown error code ${String(code)}`);
  if (typeof message !== 'string' || message.length < 10) problems.push('no useful message');
  if (!Array.isArray(details)) problems.push('details is not an array');
  if (typeof body['request_id'] !== 'string') problems.push('no request_id');
  else if (header(answer, 'x-request-id') !== body['request_id'])
    problems.push('request_id differs from X-Request-Id');
  return problems;
}

export interface CheckOptions {
  /** Pass-through answers carry the CRM's own status and body. */
  passThrough: boolean;
  /** The request was a HEAD: no body to look at. */
  head: boolean;
}

/**
 * What every answer must satisfy, whatever was sent: an answer at all, no 5xx (the sandboxes run
 * without injected faults, so not even a 502/503/504 is the CRM's fault), and a JSON error body in
 * the service's shape. A pass-through error may be the CRM's own body (still JSON); one that looks
 * like the service's (an `error` object or a `request_id`) must be exactly the service's shape.
 */
export function answerProblems(answer: RawAnswer, options: CheckOptions): string[] {
  if (answer.timedOut) return ['no answer before the deadline (hang)'];
  if (answer.status === 0) return [`connection closed without an answer (${answer.socketError ?? 'closed'})`];
  if (answer.status >= 500) return [`status ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`];
  if (answer.status < 400 || options.head) return [];
  if (!options.passThrough) return errorShapeProblems(answer);
  const parsed = parseJson(answer.body);
  if (!parsed.ok)
    return [`pass-through error body is not JSON: ${answer.body.toString('utf8').slice(0, 200)}`];
  const value = parsed.value;
  const looksLikeOurs = isRecord(value) && (isRecord(value['error']) || 'request_id' in value);
  return looksLikeOurs ? errorShapeProblems(answer) : [];
}
