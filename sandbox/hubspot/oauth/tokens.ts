import { createHash, randomBytes } from 'node:crypto';

/** Data centre the sandbox claims to live in; HubSpot tokens carry it (`pat-na1-…`, `na1-…` refresh tokens). */
export const HUBLET = 'na1';

/** Scopes of the bootstrap grant and of the private app: everything the sandbox serves. */
export const DEFAULT_SCOPES: readonly string[] = [
  'oauth',
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.objects.companies.read',
  'crm.objects.companies.write',
  'crm.objects.deals.read',
  'crm.objects.deals.write',
  'crm.objects.custom.read',
  'crm.objects.custom.write',
  'crm.objects.owners.read',
  'crm.schemas.contacts.read',
  'crm.schemas.contacts.write',
  'crm.schemas.companies.read',
  'crm.schemas.companies.write',
  'crm.schemas.deals.read',
  'crm.schemas.deals.write',
  'crm.schemas.custom.read',
  'crm.schemas.custom.write',
  'tickets',
  'account-info.security.read',
];

/** A UUID-shaped string from random bytes. */
function randomUuid(): string {
  const h = createHash('sha256').update(randomBytes(16)).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Access tokens are opaque base64url strings starting with `C` (as HubSpot's do), a few hundred characters at most. */
function accessTokenFrom(bytes: Buffer): string {
  return `CK${bytes.toString('base64url')}`;
}

export const newAccessToken = (): string => accessTokenFrom(randomBytes(48));
export const newRefreshToken = (): string => `${HUBLET}-${randomUuid()}`;
export const newAuthorizationCode = (): string => randomUuid();
