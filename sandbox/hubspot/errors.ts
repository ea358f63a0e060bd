import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/**
 * HubSpot's error body (`Error` in every CRM v3 spec, plus the `status` key live answers carry).
 * https://developers.hubspot.com/docs/api-reference/error-handling
 */
export interface HubSpotErrorBody {
  status: 'error';
  message: string;
  correlationId: string;
  category?: string;
  subCategory?: string;
  context?: Record<string, string[]>;
  errors?: HubSpotErrorDetail[];
  links?: Record<string, string>;
  /** Rate-limit answers only. */
  errorType?: string;
  policyName?: string;
  groupName?: string;
}

export interface HubSpotErrorDetail {
  message: string;
  code?: string;
  in?: string;
  subCategory?: string;
  context?: Record<string, string[]>;
}

/** Entry of `errors` in a 207 batch answer (`StandardError`). */
export interface HubSpotBatchError {
  status: 'error';
  category: string;
  message: string;
  context: Record<string, string[]>;
  subCategory?: string;
  errors?: HubSpotErrorDetail[];
  id?: string;
}

export type ErrorFields = Omit<HubSpotErrorBody, 'status' | 'correlationId'>;

/** The one builder of error bodies: `status: "error"` and a fresh correlation id. */
export function hubspotError(fields: ErrorFields): HubSpotErrorBody {
  const { message, ...rest } = fields;
  return { status: 'error', message, correlationId: randomUUID(), ...rest };
}

/** Sends an error body with HubSpot's headers (`X-HubSpot-Correlation-Id` equals the body's id). */
export function sendHubSpotError(
  reply: FastifyReply,
  statusCode: number,
  body: HubSpotErrorBody,
): FastifyReply {
  return reply
    .code(statusCode)
    .header('content-type', 'application/json;charset=utf-8')
    .header('x-hubspot-correlation-id', body.correlationId)
    .send(body);
}

/** Unknown record id: captured live answer has no `category`. */
export function notFoundBody(): HubSpotErrorBody {
  return hubspotError({ message: 'resource not found' });
}

/**
 * Unknown object type in a path: live answers are 400 with no `category` (a captured body quoted in a
 * public issue; a custom type's plain `name` gets this too, only its id or `p_…` names work).
 */
export function unknownObjectTypeBody(objectType: string): HubSpotErrorBody {
  return hubspotError({ message: `Unable to infer object type from: ${objectType}` });
}

export function validationBody(message: string, errors?: HubSpotErrorDetail[]): HubSpotErrorBody {
  return hubspotError({ message, category: 'VALIDATION_ERROR', ...(errors !== undefined ? { errors } : {}) });
}

export const AUTH_NOT_FOUND_MESSAGE =
  'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview';

export function unauthorizedBody(): HubSpotErrorBody {
  return hubspotError({ message: AUTH_NOT_FOUND_MESSAGE, category: 'INVALID_AUTHENTICATION' });
}

/** Expired OAuth token: "expired N second(s) ago" / "minute(s)" as captured, with `context["expire time"]`. */
export function expiredBody(expiredAt: Date, now: Date = new Date()): HubSpotErrorBody {
  const seconds = Math.max(0, Math.floor((now.getTime() - expiredAt.getTime()) / 1000));
  const ago = seconds >= 60 ? `${Math.floor(seconds / 60)} minute(s)` : `${seconds} second(s)`;
  return hubspotError({
    message: `The OAuth token used to make this call expired ${ago} ago.`,
    category: 'EXPIRED_AUTHENTICATION',
    context: { 'expire time': [expiredAt.toISOString()] },
  });
}

/**
 * 429 bodies. `ten_secondly`: the per-app burst limit (`policyName` lets @hubspot/api-client retry);
 * `daily`: the daily quota; `secondly`: the search endpoints' per-second limit (captured: category,
 * no policyName).
 */
export function rateLimitBody(
  kind: 'ten_secondly' | 'daily' | 'secondly',
  groupName?: string,
): HubSpotErrorBody {
  if (kind === 'secondly') {
    return hubspotError({ message: 'You have reached your secondly limit.', category: 'RATE_LIMITS' });
  }
  if (kind === 'daily') {
    return hubspotError({
      message: 'You have reached your daily limit.',
      errorType: 'RATE_LIMIT',
      policyName: 'DAILY',
    });
  }
  return hubspotError({
    message: 'You have reached your ten_secondly_rolling limit.',
    errorType: 'RATE_LIMIT',
    category: 'RATE_LIMITS',
    policyName: 'TEN_SECONDLY_ROLLING',
    ...(groupName !== undefined ? { groupName } : {}),
  });
}

export function internalErrorBody(): HubSpotErrorBody {
  return hubspotError({ message: 'internal error', category: 'INTERNAL_ERROR' });
}
