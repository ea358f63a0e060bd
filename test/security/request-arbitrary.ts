import fc from 'fast-check';
import { hostileValue, type Scale } from './hostile-values.ts';
import { describeValue, encodeJson, type FuzzValue } from './json-bytes.ts';
import { applyMutations, mutationArb } from './mutate.ts';
import type { RawRequest } from './raw-http.ts';
import {
  type AuthKind,
  authArb,
  authHeaders,
  CONTENT_TYPES,
  extraHeadersArb,
  HS_TARGETS,
  METHODS,
  querySuffix,
  SF_TARGETS,
  segmentArb,
  type Tokens,
  targetArb,
} from './request-parts.ts';
import type { FuzzRoute } from './routes-from-openapi.ts';
import { valueFor } from './schema-arbitrary.ts';

export interface FuzzRequest extends RawRequest {
  route: FuzzRoute;
  /** Which token the request carries, for the statistics. */
  crm: 'salesforce' | 'hubspot' | 'none';
  /** A short description for failure messages. */
  summary: string;
  [fc.toStringMethod]: () => string;
}

type BodyKind =
  | 'json'
  | 'none'
  | 'empty'
  | 'whitespace'
  | 'truncated'
  | 'garbage'
  | 'bom'
  | 'scalar'
  | 'form';

function bodyBytes(kind: BodyKind, value: FuzzValue): Buffer | undefined {
  const json = encodeJson(value);
  switch (kind) {
    case 'json':
      return json;
    case 'none':
      return undefined;
    case 'empty':
      return Buffer.alloc(0);
    case 'whitespace':
      return Buffer.from(' \n\t ');
    case 'truncated':
      return json.subarray(0, Math.max(1, Math.floor(json.length / 2)));
    case 'garbage':
      return Buffer.from([0xff, 0x00, 0x7b, 0x22, 0xfe]);
    case 'bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]);
    case 'scalar':
      return Buffer.from('"data"');
    case 'form':
      return Buffer.from('data=1&data[__proto__]=2');
  }
}

function fillTemplate(template: string, params: Record<string, Buffer>): Buffer {
  const parts = template.split(/(\{[a-z_]+\})/);
  return Buffer.concat(
    parts.map((part) => {
      const name = /^\{([a-z_]+)\}$/.exec(part)?.[1];
      return name === undefined ? Buffer.from(part) : (params[name] ?? Buffer.alloc(0));
    }),
  );
}

const VALID_OBJECTS = {
  salesforce: ['Account', 'Contact', 'Opportunity', 'Lead', 'Invoice__c', 'Case'],
  hubspot: ['contacts', 'companies', 'deals', 'tickets', '0-1', 'products'],
};
const VALID_TARGETS = { salesforce: SF_TARGETS, hubspot: HS_TARGETS };

/** The part of a request that is broken; the others stay valid so the broken part reaches deep. */
type Focus = 'none' | 'body' | 'path' | 'method' | 'auth' | 'headers' | 'content-type' | 'encoding' | 'all';
const focusArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant<Focus>('none') },
  { weight: 8, arbitrary: fc.constant<Focus>('body') },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Focus>('path', 'method', 'auth', 'headers', 'content-type', 'encoding', 'all'),
  },
);

/**
 * One request to `route`. Usually one aspect is broken (mostly the body) and the rest is valid
 * for the chosen CRM, so the breakage gets past the earlier checks; sometimes everything is.
 */
export function requestArb(route: FuzzRoute, tokens: Tokens, scale: Scale): fc.Arbitrary<FuzzRequest> {
  const paramNames = Object.keys(route.params).filter((n) => n !== 'target_url');
  const paramsArb = fc.tuple(
    ...paramNames.map(() => segmentArb),
    route.passThrough ? targetArb : fc.constant(Buffer.alloc(0)),
  );
  const bodyValue: fc.Arbitrary<FuzzValue> =
    route.body === undefined ? fc.oneof(fc.constant({}), hostileValue(scale)) : valueFor(route.body);
  return fc
    .record({
      crm: fc.constantFrom<'salesforce' | 'hubspot'>('salesforce', 'hubspot'),
      focus: focusArb,
      validPick: fc.nat({ max: 1_000 }),
      params: paramsArb,
      method: fc.constantFrom(...METHODS),
      query: querySuffix,
      auth: authArb,
      contentType: fc.constantFrom(...CONTENT_TYPES),
      extraHeaders: extraHeadersArb,
      bodyKind:
        route.body === undefined
          ? fc.constantFrom<BodyKind>('none', 'json', 'empty', 'garbage')
          : fc.constantFrom<BodyKind>(
              'json',
              'none',
              'empty',
              'whitespace',
              'truncated',
              'garbage',
              'bom',
              'scalar',
              'form',
            ),
      value: bodyValue,
      mutations: fc.array(mutationArb(scale), { minLength: 1, maxLength: 3 }),
    })
    .map((r) => {
      const broken = (aspect: Focus) => r.focus === aspect || r.focus === 'all';
      const pick = <T>(list: T[]): T => list[r.validPick % list.length] as T;
      const params: Record<string, Buffer> = {};
      paramNames.forEach((name, i) => {
        params[name] = broken('path')
          ? (r.params[i] ?? Buffer.alloc(0))
          : Buffer.from(pick(VALID_OBJECTS[r.crm]));
      });
      if (route.passThrough) {
        params['target_url'] = broken('path')
          ? (r.params[paramNames.length] ?? Buffer.alloc(0))
          : Buffer.from(pick(VALID_TARGETS[r.crm]));
      }
      const method = broken('method') ? r.method : route.method;
      const auth: AuthKind = broken('auth') ? r.auth : r.crm;
      const contentType = broken('content-type') ? r.contentType : 'application/json';
      const extraHeaders = broken('headers') ? r.extraHeaders : [];
      const value = broken('body') ? applyMutations(r.value, r.mutations) : r.value;
      const bodyKind: BodyKind = broken('encoding') ? r.bodyKind : route.body === undefined ? 'none' : 'json';
      const body = bodyBytes(bodyKind, value);
      const headers: Array<[string, string | Buffer]> = [
        ...authHeaders(auth, tokens),
        ...(body === undefined ? [] : ([['Content-Type', contentType]] as Array<[string, string]>)),
        ...extraHeaders,
      ];
      const path = Buffer.concat([
        fillTemplate(route.template, params),
        Buffer.from(broken('path') ? r.query : ''),
      ]);
      const crm = auth === 'salesforce' || auth === 'hubspot' ? auth : 'none';
      const summary = [
        `${method} ${path.toString('latin1').slice(0, 200)}`,
        `auth=${auth}`,
        `broken=${r.focus}`,
        body === undefined ? 'no body' : `${bodyKind} body ${body.length} B (${contentType})`,
        `value=${describeValue(value)}`,
        extraHeaders.length === 0
          ? ''
          : `extra headers: ${extraHeaders
              .map(([n, v]) => `${n}(${v.length})`)
              .slice(0, 3)
              .join(',')}`,
      ]
        .filter((s) => s !== '')
        .join(' | ');
      return {
        // fast-check prints a failing request with this instead of its (possibly huge) bytes.
        [fc.toStringMethod]: () => summary,
        route,
        crm,
        summary,
        method,
        path,
        headers,
        ...(body === undefined ? {} : { body }),
      } satisfies FuzzRequest;
    });
}
