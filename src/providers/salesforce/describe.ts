import { unknownObject } from '../../errors/index.ts';
import { closestName } from '../../lib/closest.ts';
import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import { type DescribeGlobalResult, type ObjectDescribe, type Org, send } from './org.ts';

export type { ObjectDescribe };

/** An object's field types by canonical name (`string`, `double`, `reference`, …). */
export const fieldTypesOf = (meta: ObjectDescribe): ReadonlyMap<string, string> =>
  new Map(meta.fields.map((f) => [f.name, String(f['type'] ?? '')]));

/** A cached describe: global when `name` is null, else the object's (null when the org has none). */
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

/** The org's spelling of an object name (global describe), or 404 `unknown_object` with its closest object name as a hint. */
export async function knownName(org: Org, objectName: string): Promise<string> {
  const names = (await describeGlobal(org)).sobjects.map((o) => o.name);
  const wanted = objectName.toLowerCase();
  const name = names.find((n) => n.toLowerCase() === wanted);
  if (name === undefined) throw unknownObject(objectName, closestName(objectName, names));
  return name;
}

/** The object's sObject Describe, cached per connection, or 404 `unknown_object`. */
export async function knownObject(org: Org, objectName: string): Promise<ObjectDescribe> {
  const name = await knownName(org, objectName);
  const meta = (await cached(org, name)) as ObjectDescribe | null;
  // Listed by the global describe but not described: unknown all the same, hinting its listed spelling.
  if (meta === null) throw unknownObject(objectName, name);
  return meta;
}
