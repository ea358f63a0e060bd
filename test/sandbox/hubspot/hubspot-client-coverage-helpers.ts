// Helpers of hubspot-client-coverage.test.ts: the official client with its raw answers recorded,
// its method list, the check of an answer against HubSpot's OpenAPI document, and the calls of the
// object apis (generic and per type), which are alike.
import { Client } from '@hubspot/api-client';
import type { HubSpotSandbox } from '../../../sandbox/hubspot/index.ts';
import { check, KNOWN, operationFor } from './openapi-check.ts';

export interface Wire {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

/** The official client with a middleware that keeps every raw answer (the SDK's own parsing untouched). */
export function recordingClient(hs: HubSpotSandbox) {
  const wire: Wire[] = [];
  let sent = { method: '', path: '' };
  const middleware = {
    pre(ctx: { getHttpMethod(): string; getUrl(): string }) {
      sent = { method: ctx.getHttpMethod().toLowerCase(), path: new URL(ctx.getUrl()).pathname };
      return ctx;
    },
    async post(ctx: { httpStatusCode: number; body: { text(): Promise<string> } }) {
      const text = await ctx.body.text();
      ctx.body = { text: async () => text, binary: async () => Buffer.from(text) } as typeof ctx.body;
      wire.push({ ...sent, status: ctx.httpStatusCode, body: text === '' ? undefined : JSON.parse(text) });
      return ctx;
    },
  };
  const client = new Client({
    accessToken: hs.credentials.accessToken,
    basePath: hs.url,
    middleware: [middleware as never],
  });
  return { client, wire };
}

/** `api.method` of every method of the covered apis, read from the client instance. */
export function clientMethods(client: Client): string[] {
  const crm = client.crm as unknown as Record<string, Record<string, unknown>>;
  const groups: Array<[string, Record<string, unknown>]> = [
    ...[
      'objects',
      'contacts',
      'companies',
      'deals',
      'associations',
      'pipelines',
      'properties',
      'owners',
      'schemas',
    ].map((g): [string, Record<string, unknown>] => [`crm.${g}`, crm[g] as Record<string, unknown>]),
    ['crm.associations.v4', (crm['associations'] as { v4: Record<string, unknown> }).v4],
  ];
  const names: string[] = [];
  for (const [group, apis] of groups) {
    for (const [name, api] of Object.entries(apis)) {
      if (!name.endsWith('Api') || typeof api !== 'object' || api === null) continue;
      for (const m of Object.getOwnPropertyNames(Object.getPrototypeOf(api))) {
        if (m !== 'constructor' && !m.endsWith('WithHttpInfo')) names.push(`${group}.${name}.${m}`);
      }
    }
  }
  return names.sort();
}

/** Why a wire answer does not match its documented model, or null when it does (or no document has it). */
export function mismatch(w: Wire): string | null {
  const op = operationFor(w.method, w.path);
  if (op === undefined) return null;
  if (w.body === undefined)
    return op.statuses.includes(String(w.status)) ? null : `${w.status} without a body is not documented`;
  const allowed = Object.values(KNOWN);
  const errors = check(op.doc, w.method, op.template, w.status, w.body).filter(
    (e) => !allowed.some((k) => k(e)),
  );
  return errors.length === 0
    ? null
    : `${w.method.toUpperCase()} ${op.template} ${w.status}: ${errors.map((e) => `${e.instancePath} ${e.message}`).join('; ')}`;
}

/** A method of the client's object apis, loosely typed: the calls below pass each api's own arguments. */
type Method = (...args: unknown[]) => Promise<{ id: string; results: Array<{ id: string }> }>;
/** `basicApi`, `batchApi` and `searchApi` of crm.objects or of a per-type api. */
export type ObjectApis = Record<string, Record<string, Method>>;

export type Run = () => Promise<unknown>;
export const spec = (category: 'HUBSPOT_DEFINED' | 'USER_DEFINED', typeId: number) => ({
  associationCategory: category as never,
  associationTypeId: typeId,
});

/** crm.objects (generic, on `type`) or a per-type api: basic, batch and search, one call each. */
export function objectCalls(
  prefix: string,
  api: ObjectApis,
  type: string | null,
  props: (n: number) => Record<string, string>,
  upsertKey: string,
): Array<[string, Run]> {
  const t = (...a: unknown[]) => (type === null ? a : [type, ...a]);
  const b = api['basicApi'] as Record<string, Method>;
  const batch = api['batchApi'] as Record<string, Method>;
  const search = api['searchApi'] as Record<string, Method>;
  const ids: string[] = [];
  const id = (i: number) => ids[i] as string;
  const calls: Array<[string, Run]> = [
    [
      `${prefix}.basicApi.create`,
      async () => ids.push((await b['create']!(...t({ properties: props(1), associations: [] }))).id),
    ],
    [`${prefix}.basicApi.getById`, () => b['getById']!(...t(id(0), Object.keys(props(1))))],
    [`${prefix}.basicApi.getPage`, () => b['getPage']!(...t(2))],
    [`${prefix}.basicApi.update`, () => b['update']!(...t(id(0), { properties: props(2) }))],
    [
      `${prefix}.batchApi.create`,
      async () => {
        const inputs = [3, 4, 5].map((n) => ({ properties: props(n), associations: [] }));
        ids.push(...(await batch['create']!(...t({ inputs }))).results.map((x) => x.id).sort());
      },
    ],
    [
      `${prefix}.batchApi.read`,
      () =>
        batch['read']!(
          ...t({ inputs: [{ id: id(1) }, { id: '424242424' }], properties: [], propertiesWithHistory: [] }),
        ),
    ],
    [
      `${prefix}.batchApi.update`,
      () => batch['update']!(...t({ inputs: [{ id: id(1), properties: props(6) }] })),
    ],
    [
      `${prefix}.batchApi.upsert`,
      () =>
        batch['upsert']!(
          ...t({ inputs: [{ id: props(7)[upsertKey], idProperty: upsertKey, properties: props(7) }] }),
        ),
    ],
    [
      `${prefix}.searchApi.doSearch`,
      () => search['doSearch']!(...t({ filterGroups: [], sorts: [], properties: [], limit: 2, after: '0' })),
    ],
  ];
  // Merge (contacts, companies, deals) and GDPR delete (contacts) exist on some apis only.
  if (typeof b['merge'] === 'function')
    calls.push([
      `${prefix}.basicApi.merge`,
      () => b['merge']!({ primaryObjectId: id(0), objectIdToMerge: id(2) }),
    ]);
  if (typeof b['purge'] === 'function')
    calls.push([`${prefix}.basicApi.purge`, () => b['purge']!({ objectId: id(3) })]);
  calls.push(
    [`${prefix}.batchApi.archive`, () => batch['archive']!(...t({ inputs: [{ id: id(1) }] }))],
    [`${prefix}.basicApi.archive`, () => b['archive']!(...t(id(0)))],
  );
  return calls;
}
