// Helpers of hubspot-client-coverage.test.ts: the official client with its raw answers recorded,
// its method list, the check of an answer against HubSpot's OpenAPI document, and the calls of the
// object apis (generic and per type), which are alike.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { Client } from '@hubspot/api-client';
import type { ErrorObject } from 'ajv';
import type { HubSpotSandbox } from '../../../sandbox/hubspot/index.ts';
import { check, checkSchema, KNOWN, operationFor } from './openapi-check.ts';

export interface Wire {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

const DROPPED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/**
 * The official client, pointed at a recording proxy in front of the sandbox that keeps every raw
 * answer (the client's own `middleware` option cannot: 13.5 applies configured middleware only
 * when a call passes its own `_options.middleware`).
 */
export async function recordingClient(t: TestContext, hs: HubSpotSandbox) {
  const wire: Wire[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k, v]) => !DROPPED.has(k) && typeof v === 'string'),
    ) as Record<string, string>;
    const method = req.method ?? 'GET';
    const answer = await fetch(`${hs.url}${req.url}`, {
      method,
      headers,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
    });
    const text = await answer.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    const path = new URL(req.url ?? '/', hs.url).pathname;
    wire.push({ method: method.toLowerCase(), path, status: answer.status, body });
    res.writeHead(answer.status, {
      'content-type': answer.headers.get('content-type') ?? 'application/json',
    });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const client = new Client({
    accessToken: hs.credentials.accessToken,
    basePath: `http://127.0.0.1:${port}`,
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

/** Whether the documents describe this answer (else only the client's own parsing judged it). */
export const documented = (w: Wire): boolean =>
  operationFor(w.method, w.path) !== undefined || w.path.endsWith('/merge');

/** Why a wire answer does not match its documented model, or null when it does (or no document has it). */
export function mismatch(w: Wire): string | null {
  const op = operationFor(w.method, w.path);
  const allowed = Object.values(KNOWN);
  const described = (errors: ErrorObject[], where: string) => {
    const left = errors.filter((e) => !allowed.some((k) => k(e)));
    return left.length === 0
      ? null
      : `${where}: ${left.map((e) => `${e.instancePath} ${e.message}`).join('; ')}`;
  };
  // Merge is in none of the excerpts' paths; its answer is the documented `SimplePublicObject`.
  if (op === undefined && w.path.endsWith('/merge') && w.status === 200)
    return described(checkSchema('crm-objects-v3.json', 'SimplePublicObject', w.body), 'merge');
  if (op === undefined) return null;
  if (w.body === undefined)
    return op.statuses.includes(String(w.status)) ? null : `${w.status} without a body is not documented`;
  return described(
    check(op.doc, w.method, op.template, w.status, w.body),
    `${w.method.toUpperCase()} ${op.template} ${w.status}`,
  );
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
