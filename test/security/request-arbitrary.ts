import fc from 'fast-check';
import { hostileValue, type Scale } from './hostile-values.ts';
import { describeValue, encodeJson, type FuzzValue } from './json-bytes.ts';
import { applyMutations, mutationArb } from './mutate.ts';
import type { RawRequest } from './raw-http.ts';
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

export interface Tokens {
  salesforce: string;
  hubspot: string;
}

const OBJECT_NAMES = [
  'Account',
  'Contact',
  'Opportunity',
  'Lead',
  'account',
  'Invoice__c',
  'contacts',
  'companies',
  'deals',
  'tickets',
  '0-1',
  '2-123',
  'p_pets',
  'owners',
  'pipelines',
  'Unknown__c',
];

const WEIRD_SEGMENTS = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  '..',
  '.',
  '%2e%2e',
  '%00',
  '%ff',
  '%',
  '%zz',
  '%C0%AF',
  'a%2Fb',
  'a/b',
  'A'.repeat(81),
  'A'.repeat(5_000),
  'ünïcode',
  '%F0%9F%98%80',
  '%20',
  "Account'",
  'Account;x',
  '~',
  '\\',
  '0-0',
  '99999-999999999999',
];

/** Bytes of one path segment: a name the CRMs know, one the schema allows, or anything at all. */
const segmentArb: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...OBJECT_NAMES).map((s) => Buffer.from(s)) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,20}$/).map((s) => Buffer.from(s)) },
  { weight: 3, arbitrary: fc.constantFrom(...WEIRD_SEGMENTS).map((s) => Buffer.from(s, 'latin1')) },
  {
    weight: 1,
    arbitrary: fc
      .string({ unit: 'binary', minLength: 1, maxLength: 12 })
      .map((s) =>
        Buffer.from([...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
      ),
  },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => Buffer.from(b)) },
);

const SF_TARGETS = [
  'services/data/v62.0/limits',
  'services/data/v62.0/sobjects',
  'services/data/v62.0/sobjects/Account/describe',
  'services/data/v62.0/sobjects/Account/001000000000000AAA',
  'services/data/v62.0/query?q=SELECT+Id+FROM+Account+LIMIT+2',
  'services/data/v62.0/query?q=SELECT',
  'services/data/v62.0/composite/sobjects',
  'services/data/v62.0/jobs/ingest',
  'services/data/v62.0/tooling/query?q=SELECT+Id+FROM+CustomField',
  'services/data/v99.0/unknown',
  'services/data',
  'services/oauth2/token',
];
const HS_TARGETS = [
  'crm/v3/objects/contacts',
  'crm/v3/objects/contacts/1013',
  'crm/v3/objects/contacts/batch/read',
  'crm/v3/objects/contacts/batch/create',
  'crm/v3/properties/contacts',
  'crm/v3/schemas',
  'crm/v3/owners',
  'https://api.hubapi.com/crm/v3/objects/companies?limit=2',
  'crm/v4/unknown',
];
const HOSTILE_TARGETS = [
  'https://evil.example.com/x',
  'http://api.hubapi.com/crm/v3/schemas',
  'https://127.0.0.1/x',
  'https://[::1]/x',
  'https://user:pw@api.hubapi.com/crm/v3/schemas',
  'https://api.hubapi.com:8443/crm/v3/schemas',
  'https://api.hubapi.com.evil.com/x',
  '%2e%2e/%2e%2e/x',
  '..%2f..%2fx',
  '//evil.example.com/x',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'https:%2F%2Fevil.example.com',
  'https%3A%2F%2Fevil.example.com/x',
  'services/data/v62.0/../../x',
  '',
  '?',
  '#x',
];

const targetArb: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SF_TARGETS, ...HS_TARGETS).map((s) => Buffer.from(s)) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_TARGETS).map((s) => Buffer.from(s)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('services/data/v62.0/sobjects/', 'crm/v3/objects/'), segmentArb)
      .map(([prefix, seg]) => Buffer.concat([Buffer.from(prefix), seg])),
  },
);

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'post'];

const querySuffix = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '?',
      '?a=1',
      '?__proto__[x]=1',
      '?constructor[prototype][x]=1',
      '?data=1&data=2',
      '?access_token=not-a-secret',
      `?${'a'.repeat(10_000)}=1`,
      '/',
      '//',
      '/.',
      '#frag',
    ),
  },
);

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json, text/plain',
  'application/vnd.api+json',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '',
  '¿',
  ';;;',
];

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

type AuthKind = 'salesforce' | 'hubspot' | 'none' | 'garbage' | 'twice' | 'basic' | 'lowercase';
const authArb = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom<AuthKind>('salesforce', 'hubspot') },
  { weight: 3, arbitrary: fc.constantFrom<AuthKind>('none', 'garbage', 'twice', 'basic', 'lowercase') },
);

function authHeaders(kind: AuthKind, tokens: Tokens): Array<[string, string]> {
  switch (kind) {
    case 'salesforce':
    case 'hubspot':
      return [['Authorization', `Bearer ${tokens[kind]}`]];
    case 'none':
      return [];
    case 'garbage':
      return [['Authorization', 'Bearer crmp_eu_\u00ff\u00fe']];
    case 'twice':
      return [
        ['Authorization', `Bearer ${tokens.salesforce}`],
        ['Authorization', `Bearer ${tokens.hubspot}`],
      ];
    case 'basic':
      return [['Authorization', `Basic ${Buffer.from(`x:${tokens.salesforce}`).toString('base64')}`]];
    case 'lowercase':
      return [['authorization', `bearer ${tokens.hubspot}`]];
  }
}

const extraHeadersArb: fc.Arbitrary<Array<[string, string | Buffer]>> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Array<[string, string | Buffer]>>([]) },
  {
    weight: 8,
    arbitrary: fc.constantFrom<Array<[string, string | Buffer]>>(
      [['X-Big', 'a'.repeat(20_000)]],
      [['X-Big', 'a'.repeat(70_000)]],
      Array.from({ length: 300 }, (_, i) => [`X-H${i}`, 'v'] as [string, string]),
      [['X-Bytes', Buffer.from([0xff, 0xfe, 0x80])]],
      [['X-Request-Id', 'forged-id']],
      [['X-Request-Id', 'x'.repeat(5_000)]],
      [['Accept', 'text/html']],
      [['Accept-Encoding', 'gzip, br']],
      [['If-None-Match', '*']],
      [['Expect', '100-continue']],
      [['X-Forwarded-For', '127.0.0.1']],
      [['Cookie', 'a=b']],
      [['Range', 'bytes=0-1']],
    ),
  },
);

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
