import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors/index.ts';

/** A paging position with its connection as signed base64url JSON: not forgeable, not usable elsewhere. */
export function signCursor<T extends { c: string }>(key: Buffer, payload: T): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/** The payload of a cursor signed for this connection and accepted by `valid`; else 400. */
export function verifyCursor<T extends { c: string }>(
  key: Buffer,
  cursor: string,
  connectionId: string,
  valid: (payload: T) => boolean = () => true,
): T {
  const [body, mac] = cursor.split('.');
  if (body === undefined || mac === undefined) throw invalidCursor();
  const want = Buffer.from(createHmac('sha256', key).update(body).digest('base64url'));
  const given = Buffer.from(mac);
  if (given.length !== want.length || !timingSafeEqual(given, want)) throw invalidCursor();
  let payload: T;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T;
  } catch {
    throw invalidCursor();
  }
  if (typeof payload !== 'object' || payload === null || payload.c !== connectionId || !valid(payload)) {
    throw invalidCursor();
  }
  return payload;
}

function invalidCursor(): ApiError {
  return new ApiError(
    'invalid_cursor',
    'This cursor is not valid for this connection. Send the next_cursor of a previous answer unchanged, with the same token.',
    { details: [{ path: '/cursor' }] },
  );
}
