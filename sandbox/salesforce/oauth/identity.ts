import type { FastifyRequest } from 'fastify';
import { baseUrl, identityUrl } from './context.ts';
import type { OAuthState } from './state.ts';

/** URLs of the identity document; Salesforce leaves `{version}` for the client to fill in. */
function urls(base: string, orgId: string, userId: string) {
  const data = `${base}/services/data/v{version}`;
  return {
    enterprise: `${base}/services/Soap/c/{version}/${orgId.slice(0, 15)}`,
    metadata: `${base}/services/Soap/m/{version}/${orgId.slice(0, 15)}`,
    partner: `${base}/services/Soap/u/{version}/${orgId.slice(0, 15)}`,
    rest: `${data}/`,
    sobjects: `${data}/sobjects/`,
    search: `${data}/search/`,
    query: `${data}/query/`,
    recent: `${data}/recent/`,
    tooling_soap: `${base}/services/Soap/T/{version}/${orgId.slice(0, 15)}`,
    tooling_rest: `${data}/tooling/`,
    profile: `${base}/${userId}`,
    feeds: `${data}/chatter/feeds`,
    groups: `${data}/chatter/groups`,
    users: `${data}/chatter/users`,
    feed_items: `${data}/chatter/feed-items`,
    feed_elements: `${data}/chatter/feed-elements`,
    custom_domain: base,
  };
}

/** `GET /id/{orgId}/{userId}`: the identity service's answer (a realistic subset of its keys). */
export function identityDocument(request: FastifyRequest, oauth: OAuthState, userId: string) {
  const u = oauth.user;
  const base = baseUrl(request);
  return {
    id: identityUrl(request, oauth.orgId, userId),
    asserted_user: true,
    user_id: userId,
    organization_id: oauth.orgId,
    username: u.username,
    nick_name: u.username.split('@')[0],
    display_name: `${u.firstName} ${u.lastName}`,
    email: u.email,
    email_verified: true,
    first_name: u.firstName,
    last_name: u.lastName,
    timezone: u.timezone,
    photos: { picture: `${base}/profilephoto/005/F`, thumbnail: `${base}/profilephoto/005/T` },
    addr_street: null,
    addr_city: null,
    addr_state: null,
    addr_country: null,
    addr_zip: null,
    mobile_phone: null,
    mobile_phone_verified: false,
    is_lightning_login_user: false,
    status: { created_date: null, body: null },
    urls: urls(base, oauth.orgId, userId),
    active: true,
    user_type: 'STANDARD',
    language: u.language,
    locale: u.locale,
    utcOffset: 0,
    last_modified_date: '2024-01-01T00:00:00Z',
    is_app_installed: true,
  };
}

/** `GET /services/oauth2/userinfo`: the OpenID Connect shape of the same facts. */
export function userInfoDocument(request: FastifyRequest, oauth: OAuthState, userId: string) {
  const u = oauth.user;
  const base = baseUrl(request);
  return {
    sub: identityUrl(request, oauth.orgId, userId),
    user_id: userId,
    organization_id: oauth.orgId,
    preferred_username: u.username,
    nickname: u.username.split('@')[0],
    name: `${u.firstName} ${u.lastName}`,
    email: u.email,
    email_verified: true,
    given_name: u.firstName,
    family_name: u.lastName,
    zoneinfo: u.timezone,
    photos: { picture: `${base}/profilephoto/005/F`, thumbnail: `${base}/profilephoto/005/T` },
    profile: `${base}/${userId}`,
    picture: `${base}/profilephoto/005/F`,
    address: {},
    is_salesforce_integration_user: false,
    urls: urls(base, oauth.orgId, userId),
    active: true,
    user_type: 'STANDARD',
    language: u.language,
    locale: u.locale,
    utcOffset: 0,
    updated_at: '2024-01-01T00:00:00Z',
    is_app_installed: true,
  };
}
