import type { FastifyReply } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import {
  type HubSpotErrorBody,
  hubspotError,
  notFoundBody,
  sendHubSpotError,
  unknownObjectTypeBody,
  validationBody,
} from '../errors.ts';
import type { ObjectTypeDefinition } from '../model/types.ts';
import type { PropertyValueError } from '../model/values.ts';
import type { WriteFailure } from './writes.ts';

/** The object type a path names, or `undefined` after sending HubSpot's 400 for an unknown one. */
export function typeOrReply(
  ctx: HubSpotContext,
  ref: string,
  reply: FastifyReply,
): ObjectTypeDefinition | undefined {
  const type = ctx.portal.types.resolveActive(ref);
  if (type === undefined) sendHubSpotError(reply, 400, unknownObjectTypeBody(ref));
  return type;
}

/**
 * HubSpot's 400 for bad property values: the per-property list JSON-encoded into `message` (as the
 * docs' example shows) and again as `errors[]` with `code` and `context.propertyName`.
 */
export function propertyErrorsBody(portalId: number, errors: PropertyValueError[]): HubSpotErrorBody {
  const items = errors.map((e) => ({
    isValid: false,
    message: e.message,
    error: e.code,
    name: e.name,
    localizedErrorMessage: e.message,
    portalId,
  }));
  return validationBody(
    `Property values were not valid: ${JSON.stringify(items)}`,
    errors.map((e) => ({ message: e.message, code: e.code, context: { propertyName: [e.name] } })),
  );
}

/** Status and body of a failed single-record write. */
export function failureBody(ctx: HubSpotContext, failure: WriteFailure): [number, HubSpotErrorBody] {
  switch (failure.kind) {
    case 'validation':
      return [400, propertyErrorsBody(ctx.portal.portalId, failure.errors)];
    case 'conflict':
      return [409, hubspotError({ message: failure.message, category: 'CONFLICT' })];
    case 'notFound':
      return [404, notFoundBody()];
  }
}

/**
 * A request body that is not the JSON object the endpoint needs. HubSpot's Java stack phrases these
 * as "Invalid input JSON on line L, column C: …"; position is not tracked here.
 */
export function invalidInputBody(detail: string): HubSpotErrorBody {
  return validationBody(`Invalid input JSON on line 1, column 1: ${detail}`);
}

/** Feedback submissions are read-only through the API. */
export function readOnlyTypeBody(type: ObjectTypeDefinition): HubSpotErrorBody {
  return hubspotError({
    message: `The object type ${type.singularName} is read-only through this API.`,
    category: 'VALIDATION_ERROR',
  });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `?archived=true` (anything else is false). */
export function archivedParam(raw: unknown): boolean {
  return raw === true || raw === 'true';
}
