// The header rule both bench forwarders apply, as the pass-through does: hop-by-hop headers and
// each side's credentials stay behind.
import type { IncomingHttpHeaders } from 'node:http';

/** Never passed on, either way (RFC 9110 §7.6.1), and the credentials of each side. */
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'authorization',
  'cookie',
  'set-cookie',
]);

/** Headers less hop-by-hop ones, those `Connection` names among them (names arrive lower-cased). */
export function passedOn(incoming: IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const named = incoming['connection'];
  const alsoDropped =
    typeof named === 'string' && named !== 'keep-alive' && named !== 'close'
      ? new Set(
          named
            .toLowerCase()
            .split(',')
            .map((n) => n.trim()),
        )
      : undefined;
  const out: Record<string, string | string[]> = {};
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined || DROPPED.has(name) || alsoDropped?.has(name) === true) continue;
    out[name] = value;
  }
  return out;
}
