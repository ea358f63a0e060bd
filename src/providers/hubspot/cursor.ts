import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../errors/index.ts';

const invalidCursor = () =>
  new ApiError(
    'invalid_cursor',
    'This cursor is not valid for this connection. Send the next_cursor of a previous answer unchanged, with the same token.',
    { details: [{ path: '/cursor' }] },
  );

/**
 * Cursors the service hands out for a read it continues later (HubSpot's paging position and the
 * request): JSON bound to the connection (`c`), signed with HMAC-SHA256, so a client can neither
 * forge one nor use it with another connection.
 */
export function signedCursors<T extends { c: string }>(key: Buffer) {
  return {
    sign(payload: T): string {
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
    },
    verify(cursor: string, connectionId: string): T {
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
      if (payload.c !== connectionId) throw invalidCursor();
      return payload;
    },
  };
}
