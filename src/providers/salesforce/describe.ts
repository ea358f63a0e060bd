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

/**
 * One connection's cached describe: Describe Global when `name` is null, else the object's sObject
 * Describe (null when the org has no such object).
 */
async function cached(org: Org, name: string | null): Promise<DescribeGlobalResult | ObjectDescribe | null> {
  const key = name === null ? 'global' : `object:${name}`;
  return org.describes.getOrLoad(`${org.session.connectionId}\u0000${key}`, async () => {
    const call = name === null ? 'describe global' : 'describe object';
    const path = name === null ? '/sobjects/' : `/sobjects/${encodeURIComponent(name)}/describe/`;
    const response = await send(org, call, call.replace(' ', '.'), {
      method: 'GET',
      url: `${org.api}${path}`,
      idempotent: true,
    });
    if (response.status === 404 && name !== null) return null;
    const body = parseJson<Record<string, unknown>>(response);
    if (response.status !== 200 || !Array.isArray(body?.[name === null ? 'sobjects' : 'fields'])) {
      throw crmErrorFromResponse('salesforce', response, `describe ${name ?? 'global'}`);
    }
    return body as DescribeGlobalResult | ObjectDescribe;
  });
}

/** Describe Global, cached per connection. */
export async function describeGlobal(org: Org): Promise<DescribeGlobalResult> {
  return (await cached(org, null)) as DescribeGlobalResult;
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
  return (await cached(org, name)) as ObjectDescribe | null;
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
