/**
 * The sandboxes' control API (`/__sandbox/…`: call counts, fault injection, realism, reset) is
 * for the operator and the tests, never for token holders: through pass-through one token could
 * inject faults into, or reset, the sandbox every other token uses. No real CRM path has such a
 * segment, so it is refused on every connection, however it is spelled.
 */
const CONTROL_SEGMENT = '__sandbox';

/**
 * True when `path` names the control API in any spelling a server might route the same way: any
 * case, percent-encoded characters, doubled slashes, or a matrix parameter (`;x`) after the name.
 * Undecodable percent-encoding counts as a match (nothing sane needs it).
 */
export function namesSandboxControl(path: string): boolean {
  // Checked on every pass-through: a path that names it nowhere, in no spelling, needs no split.
  if (!path.includes('%') && !path.toLowerCase().includes(CONTROL_SEGMENT)) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return true;
  }
  return decoded
    .toLowerCase()
    .split('/')
    .some((segment) => segment.startsWith(CONTROL_SEGMENT));
}
