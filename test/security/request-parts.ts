import fc from 'fast-check';

/** The pieces a fuzzed request is made of, valid and hostile: path segments, targets, headers. */

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
export const segmentArb: fc.Arbitrary<Buffer> = fc.oneof(
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

export const SF_TARGETS = [
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
export const HS_TARGETS = [
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

export const targetArb: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SF_TARGETS, ...HS_TARGETS).map((s) => Buffer.from(s)) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_TARGETS).map((s) => Buffer.from(s)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('services/data/v62.0/sobjects/', 'crm/v3/objects/'), segmentArb)
      .map(([prefix, seg]) => Buffer.concat([Buffer.from(prefix), seg])),
  },
);

export const METHODS = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'post',
];

export const querySuffix = fc.oneof(
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

export const CONTENT_TYPES = [
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

export type AuthKind = 'salesforce' | 'hubspot' | 'none' | 'garbage' | 'twice' | 'basic' | 'lowercase';
export const authArb = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom<AuthKind>('salesforce', 'hubspot') },
  { weight: 3, arbitrary: fc.constantFrom<AuthKind>('none', 'garbage', 'twice', 'basic', 'lowercase') },
);

export function authHeaders(kind: AuthKind, tokens: Tokens): Array<[string, string]> {
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

export const extraHeadersArb: fc.Arbitrary<Array<[string, string | Buffer]>> = fc.oneof(
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
