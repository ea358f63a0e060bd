import type { FastifyReply } from 'fastify';
import { createRng } from '../../shared/index.ts';
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

/** A seeded Fisher–Yates shuffle: the same batch answers in the same (scrambled) order on every run. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const rng = createRng(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Per sandbox: how many shuffled answers it has given (each answer's seed), so runs repeat. */
const shuffles = new WeakMap<object, number>();

/** The seed of the next shuffled batch answer of this sandbox, or undefined to keep input order. */
export function shuffleSeed(ctx: {
  options: { batchResultOrder?: 'input' | 'shuffled' };
}): number | undefined {
  if (ctx.options.batchResultOrder !== 'shuffled') return undefined;
  const n = (shuffles.get(ctx) ?? 0) + 1;
  shuffles.set(ctx, n);
  return 0x5eed + n;
}

export function batchAnswer(
  startedAt: string,
  allResults: unknown[],
  allErrors: HubSpotBatchError[],
  completedAt: string,
  seed?: number,
) {
  const results = seed === undefined ? allResults : shuffled(allResults, seed);
  const errors = seed === undefined ? allErrors : shuffled(allErrors, seed + 7);
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
