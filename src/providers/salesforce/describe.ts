import { type ApiError, unknownObject as unknownObjectError } from '../../errors/index.ts';
import { closestName } from '../../lib/closest.ts';
import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import { type DescribeCache, type DescribeGlobalResult, type ObjectDescribe, type Org, send } from './org.ts';

export type { DescribeCache, ObjectDescribe };

/** An object's field types by canonical name (`string`, `double`, `reference`, …). */
export const fieldTypesOf = (meta: ObjectDescribe): ReadonlyMap<string, string> =>
  new Map(meta.fields.map((f) => [f.name, String(f['type'] ?? '')]));

/** Drops one connection's cached describes (after a metadata change). */
export function forgetDescribes(cache: DescribeCache, connectionId: string): void {
  cache.deleteWhere((key) => key.startsWith(`${connectionId}\u0000`));
}

/** One connection's cached describe, loaded by a GET of `path`; each key always holds the same kind of result. */
async function cached<T extends DescribeGlobalResult | ObjectDescribe>(
  org: Org,
  key: string,
  path: string,
  what: string,
  valid: (body: T) => boolean,
): Promise<T | null> {
  return org.describes.getOrLoad(`${org.session.connectionId}\u0000${key}`, async () => {
    const call = key === 'global' ? 'describe global' : 'describe object';
    const response = await send(org, call, call.replace(' ', '.'), {
      method: 'GET',
      url: `${org.api}${path}`,
      idempotent: true,
    });
    if (response.status === 404 && key !== 'global') return null;
    const body = parseJson<T>(response);
    if (response.status !== 200 || body === undefined || !valid(body)) {
      throw crmErrorFromResponse('salesforce', response, what);
    }
    return body;
  }) as Promise<T | null>;
}

/** Describe Global, cached per connection. */
export async function describeGlobal(org: Org): Promise<DescribeGlobalResult> {
  const global = await cached<DescribeGlobalResult>(org, 'global', '/sobjects/', 'describe global', (b) =>
    Array.isArray(b.sobjects),
  );
  return global as DescribeGlobalResult;
}

/** Canonical object name from the (cached) global describe; null when the org has no such object. */
export async function resolveObjectName(org: Org, objectName: string): Promise<string | null> {
  const wanted = objectName.toLowerCase();
  return (await describeGlobal(org)).sobjects.find((o) => o.name.toLowerCase() === wanted)?.name ?? null;
}

/** sObject Describe, cached per connection; null when the org has no such object. */
export async function describeObject(org: Org, objectName: string): Promise<ObjectDescribe | null> {
  const name = await resolveObjectName(org, objectName);
  if (name === null) return null;
  return cached<ObjectDescribe>(
    org,
    `object:${name}`,
    `/sobjects/${encodeURIComponent(name)}/describe/`,
    `describe ${name}`,
    (b) => Array.isArray(b.fields),
  );
}

/** `404 unknown_object` for a name the org lacks, with its closest object name as a hint. */
export async function unknownObject(org: Org, objectName: string): Promise<ApiError> {
  const names = (await describeGlobal(org)).sobjects.map((o) => o.name);
  return unknownObjectError(objectName, closestName(objectName, names));
}

/** The object's describe, or 404 `unknown_object`. */
export async function knownObject(org: Org, objectName: string): Promise<ObjectDescribe> {
  const meta = await describeObject(org, objectName);
  if (meta === null) throw await unknownObject(org, objectName);
  return meta;
}
