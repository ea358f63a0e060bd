import type { FastifyReply } from 'fastify';
import { type HubSpotBatchError, sendHubSpotError, validationBody } from '../errors.ts';
import type { ObjectTypeDefinition } from '../model/types.ts';
import { invalidInputBody, isRecord } from './http.ts';

export interface TypeParams {
  objectType: string;
}

export const MAX_BATCH = 100;
export const MAX_BATCH_WITH_HISTORY = 50;

/** Captured texts of the batch-size 400s. */
export const TOO_MANY =
  'The maximum number of inputs supported in a batch is 100. Please reduce the number of items and try again';
export const TOO_MANY_HISTORY =
  'The maximum number of inputs supported in a batch request for property histories is 50. Please reduce the number of items and try again';

export type Input = Record<string, unknown>;

/** `inputs` of a batch body, or `undefined` after answering HubSpot's 400. */
export function inputsOrReply(
  body: unknown,
  model: string,
  reply: FastifyReply,
  max = MAX_BATCH,
  tooMany = TOO_MANY,
): Input[] | undefined {
  if (!isRecord(body) || !Array.isArray(body['inputs'])) {
    sendHubSpotError(
      reply,
      400,
      invalidInputBody(`Cannot build ${model}, some of required attributes are not set [inputs]`),
    );
    return undefined;
  }
  const inputs = body['inputs'];
  if (inputs.length > max) {
    sendHubSpotError(reply, 400, validationBody(tooMany));
    return undefined;
  }
  if (!inputs.every(isRecord)) {
    sendHubSpotError(reply, 400, invalidInputBody(`Cannot build ${model}: every input must be an object`));
    return undefined;
  }
  return inputs;
}

export function batchAnswer(
  startedAt: string,
  results: unknown[],
  errors: HubSpotBatchError[],
  completedAt: string,
) {
  return errors.length === 0
    ? { status: 'COMPLETE', results, startedAt, completedAt }
    : { status: 'COMPLETE', results, numErrors: errors.length, errors, startedAt, completedAt };
}

/** HubSpot's multi-status: one `OBJECT_NOT_FOUND` entry listing every missing input value. */
export function notFoundError(type: ObjectTypeDefinition, ids: string[]): HubSpotBatchError {
  return {
    status: 'error',
    category: 'OBJECT_NOT_FOUND',
    message: `Could not get some ${type.singularName} objects, they may be deleted or not exist. Check that ids are valid.`,
    context: { ids },
  };
}
