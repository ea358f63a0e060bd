import { Type } from 'typebox';

// The admin views are open objects: what the admin service adds to a view passes as it is.
const OPEN = { additionalProperties: true };

export const IdParams = Type.Object(
  { id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,80}$', description: 'The id (`conn_…`, `tok_…`, …).' }) },
  { additionalProperties: false },
);

export const ConnectionView = Type.Object(
  {
    id: Type.String(),
    provider: Type.String(),
    providerName: Type.String(),
    label: Type.Union([Type.String(), Type.Null()]),
    region: Type.String(),
    sandbox: Type.Boolean(),
    status: Type.Union([Type.Literal('active'), Type.Literal('needs_reauth'), Type.Literal('failing')], {
      description:
        '`needs_reauth`: the CRM refused the credentials; `failing`: the latest CRM call failed (see `lastError`).',
    }),
    lastError: Type.Union([Type.String(), Type.Null()]),
    lastErrorAt: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String(),
    lastUsedAt: Type.Union([Type.String(), Type.Null()]),
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
    name: Type.Union([Type.String(), Type.Null()]),
    prefix: Type.String({ description: 'Display prefix; the token itself is never shown again.' }),
    region: Type.String(),
    createdAt: Type.String(),
    lastUsedAt: Type.Union([Type.String(), Type.Null()]),
    expiresAt: Type.Union([Type.String(), Type.Null()]),
    revokedAt: Type.Union([Type.String(), Type.Null()]),
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
    interface: Type.Union([Type.String(), Type.Null()], {
      description: 'The `X-CRM-Proxy-Interface` answered.',
    }),
    requestId: Type.String(),
    tokenId: Type.Union([Type.String(), Type.Null()]),
    connectionId: Type.Union([Type.String(), Type.Null()]),
    errorCode: Type.Union([Type.String(), Type.Null()]),
    actor: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
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
    label: Type.Union([Type.String(), Type.Null()]),
    loginUrl: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String(),
    expiresAt: Type.String(),
    usedAt: Type.Union([Type.String(), Type.Null()]),
    revokedAt: Type.Union([Type.String(), Type.Null()]),
    connectionId: Type.Union([Type.String(), Type.Null()]),
  },
  OPEN,
);
