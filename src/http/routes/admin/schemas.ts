import { type TSchemaOptions, Type } from 'typebox';
import { STATUS_CLASSES } from '../../../admin/service.ts';

// The admin views are open objects: what the admin service adds to a view passes as it is.
const OPEN = { additionalProperties: true };
const CLOSED = { additionalProperties: false };
/** A string, or null where there is none. */
const orNull = (options?: TSchemaOptions) => Type.Union([Type.String(), Type.Null()], options);
const Id = Type.String({ pattern: '^[A-Za-z0-9_-]{1,80}$' });

export const IdParams = Type.Object(
  { id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,80}$', description: 'The id (`conn_…`, `tok_…`, …).' }) },
  { additionalProperties: false },
);

export const ConnectionView = Type.Object(
  {
    id: Type.String(),
    provider: Type.String(),
    providerName: Type.String(),
    label: orNull(),
    region: Type.String(),
    sandbox: Type.Boolean(),
    status: Type.Union([Type.Literal('active'), Type.Literal('needs_reauth'), Type.Literal('failing')], {
      description:
        '`needs_reauth`: the CRM refused the credentials; `failing`: the latest CRM call failed (see `lastError`).',
    }),
    lastError: orNull(),
    lastErrorAt: orNull(),
    createdAt: Type.String(),
    lastUsedAt: orNull(),
    allowance: Type.Union(
      [
        Type.Object({ used: Type.Integer(), limit: Type.Integer(), at: Type.String(), left: Type.Integer() }),
        Type.Null(),
      ],
      {
        description:
          'The daily API allowance of the account as its latest answers reported it (from the CRM’s own limit headers); null when unknown.',
      },
    ),
  },
  OPEN,
);

export const TokenView = Type.Object(
  {
    id: Type.String(),
    connectionId: Type.String(),
    name: orNull(),
    prefix: Type.String({ description: 'Display prefix; the token itself is never shown again.' }),
    region: Type.String(),
    createdAt: Type.String(),
    lastUsedAt: orNull(),
    expiresAt: orNull(),
    revokedAt: orNull(),
    state: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
    ),
  },
  OPEN,
);

export const RequestEntry = Type.Object(
  {
    id: Type.String(),
    at: Type.String(),
    method: Type.String(),
    path: Type.String({ description: 'Without its query string.' }),
    status: Type.Integer(),
    latencyMs: Type.Integer(),
    crmCalls: Type.Integer({
      description: 'CRM calls the request spent, retries and token refreshes included.',
    }),
    interface: orNull({ description: 'The `X-CRM-Proxy-Interface` answered.' }),
    requestId: Type.String(),
    tokenId: orNull(),
    connectionId: orNull(),
    errorCode: orNull(),
    actor: Type.Optional(
      orNull({
        description:
          'Who did an operator action (`op_…` in the console, `cli:<user>` for the CLI; method `CLI`); null for API requests.',
      }),
    ),
  },
  OPEN,
);

export const ConnectLink = Type.Object(
  {
    id: Type.String(),
    provider: Type.String(),
    label: orNull(),
    loginUrl: orNull(),
    createdAt: Type.String(),
    expiresAt: Type.String(),
    usedAt: orNull(),
    revokedAt: orNull(),
    connectionId: orNull(),
  },
  OPEN,
);

export const CreatedLink = Type.Object(
  { id: Type.String(), url: Type.String(), expiresAt: Type.String() },
  OPEN,
);

export const UsageSeries = Type.Object({
  connectionId: orNull(),
  hours: Type.Array(Type.String()),
  requests: Type.Array(Type.Integer()),
  errors: Type.Array(Type.Integer()),
});

export const CreateTokenBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'A label for the token.' })),
    expires_in_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'No expiry when absent.' }),
    ),
  },
  CLOSED,
);

export const CreateLinkBody = Type.Object(
  {
    provider: Type.String({
      pattern: '^[a-z][a-z0-9_-]{0,39}$',
      description: 'The id of a registered CRM, as connections show it in `provider`.',
    }),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    login_host: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'The login host, for a CRM that takes one (see its connect documentation).',
      }),
    ),
    ttl_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, description: 'Default 24.' })),
  },
  CLOSED,
);

export const RequestsQuery = Type.Object(
  {
    connection_id: Type.Optional(Id),
    token_id: Type.Optional(Id),
    status_class: Type.Optional(
      Type.Union(
        STATUS_CLASSES.map((c) => Type.Literal(`${c}xx`)),
        { description: '`2xx`, `3xx`, `4xx` or `5xx`.' },
      ),
    ),
    request_id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._:-]{1,128}$' })),
    before: Type.Optional(
      Type.String({
        pattern: '^\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z$',
        description: 'Entries before this instant (paging).',
      }),
    ),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: '1–1000, default 100.' })),
  },
  CLOSED,
);

export const UsageQuery = Type.Object(
  {
    connection_id: Type.Optional(Id),
    hours: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,3}$', description: '1–168, default 168 (7 days).' }),
    ),
  },
  CLOSED,
);
