import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import {
  type HubSpotBatchError,
  type HubSpotErrorBody,
  sendHubSpotError,
  validationBody,
} from '../errors.ts';
import {
  batchAnswer,
  type Input,
  inputsOrReply,
  notFoundError,
  shuffleSeed,
  type TypeParams,
} from './batch-common.ts';
import { failureBody, isRecord, readOnlyTypeBody, typeOrReply } from './http.ts';
import { applyAssociations, type PlannedAssociation, planAssociations } from './inline-associations.ts';
import { type PublicObject, toPublicObject } from './view.ts';
import {
  batchClash,
  type CheckedCreate,
  type CheckedUpdate,
  checkCreate,
  checkUpdate,
  commitCreate,
  commitUpdate,
  findRecord,
  isUniqueProperty,
  type WriteFailure,
} from './writes.ts';

/** Batch write results echo the input's `objectWriteTraceId` (`SimplePublicObject.objectWriteTraceId`). */
function withTrace(
  view: PublicObject,
  traceId: string | undefined,
): PublicObject & { objectWriteTraceId?: string } {
  return traceId === undefined ? view : { ...view, objectWriteTraceId: traceId };
}

/** A failed input as a 207 `errors[]` entry (`StandardError`). */
function batchError(
  ctx: HubSpotContext,
  failure: WriteFailure,
  traceId: string | undefined,
): HubSpotBatchError {
  const [, body] = failureBody(ctx, failure);
  const context: Record<string, string[]> = { ...(body.context ?? {}) };
  if (traceId !== undefined) context['objectWriteTraceId'] = [traceId];
  if (failure.kind === 'notFound') context['ids'] = [failure.id];
  return {
    status: 'error',
    category: body.category ?? 'OBJECT_NOT_FOUND',
    message: body.message,
    context,
    ...(body.errors !== undefined ? { errors: body.errors } : {}),
  };
}

const traceIdOf = (input: Input): string | undefined =>
  typeof input['objectWriteTraceId'] === 'string' ? input['objectWriteTraceId'] : undefined;

/**
 * Without `objectWriteTraceId` on the failing inputs, a bad input fails the whole call with the
 * single-record error; with it, HubSpot answers 207 and names the failed input (documented).
 */
function wholeCallFailure(
  ctx: HubSpotContext,
  failures: { failure: WriteFailure; traceId: string | undefined }[],
): [number, HubSpotErrorBody] | undefined {
  const first = failures.find((f) => f.traceId === undefined && f.failure.kind !== 'notFound');
  return first === undefined ? undefined : failureBody(ctx, first.failure);
}

/** Each input's checked `associations`, or the first bad one's message (the whole call is refused, as for a single create). */
function planBatchAssociations(
  ctx: HubSpotContext,
  type: Parameters<typeof planAssociations>[1],
  inputs: Input[],
): PlannedAssociation[][] | string {
  const plans: PlannedAssociation[][] = [];
  for (const [i, input] of inputs.entries()) {
    const plan = planAssociations(ctx, type, input['associations']);
    if (typeof plan === 'string') return `inputs[${i}].${plan}`;
    plans.push(plan);
  }
  return plans;
}

/** Batch create, update, upsert and archive. */
export function registerBatchRoutes(app: FastifyInstance, ctx: HubSpotContext, prefix: string): void {
  const route = `${prefix}/:objectType/batch`;

  app.post<{ Params: TypeParams; Body: unknown }>(
    `${route}/create`,
    { config: { kind: 'objects.batch.create' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      if (type.readOnly) return sendHubSpotError(reply, 400, readOnlyTypeBody(type));
      const startedAt = ctx.portal.now();
      const inputs = inputsOrReply(req.body, 'BatchInputSimplePublicObjectInputForCreate', reply);
      if (inputs === undefined) return reply;
      const plans = planBatchAssociations(ctx, type, inputs);
      if (typeof plans === 'string') return sendHubSpotError(reply, 400, validationBody(plans));
      const seen = new Map<string, string>();
      const ok: { checked: CheckedCreate; traceId: string | undefined; plan: PlannedAssociation[] }[] = [];
      const failed: { failure: WriteFailure; traceId: string | undefined }[] = [];
      inputs.forEach((input, i) => {
        const traceId = traceIdOf(input);
        const props = isRecord(input['properties']) ? input['properties'] : {};
        const c = checkCreate(ctx.portal, type, props);
        const clash = c.ok ? batchClash(ctx.portal, type, c.checked.values, seen, `input ${i}`) : undefined;
        if (!c.ok || clash !== undefined) failed.push({ failure: c.ok ? clash! : c.failure, traceId });
        else ok.push({ checked: c.checked, traceId, plan: plans[i] ?? [] });
      });
      const whole = wholeCallFailure(ctx, failed);
      if (whole !== undefined) return sendHubSpotError(reply, whole[0], whole[1]);
      await ctx.realism.recordDelay(inputs.length);
      const results = ok.map(({ checked, traceId, plan }) => {
        const record = commitCreate(ctx.portal, type, checked);
        applyAssociations(ctx, type, record.id, plan);
        return withTrace(toPublicObject(record, Object.keys(record.properties), { nulls: false }), traceId);
      });
      const errors = failed.map((f) => batchError(ctx, f.failure, f.traceId));
      return reply
        .code(errors.length > 0 ? 207 : 201)
        .send(batchAnswer(startedAt, results, errors, ctx.portal.now(), shuffleSeed(ctx)));
    },
  );

  app.post<{ Params: TypeParams; Body: unknown }>(
    `${route}/update`,
    { config: { kind: 'objects.batch.update' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      if (type.readOnly) return sendHubSpotError(reply, 400, readOnlyTypeBody(type));
      const startedAt = ctx.portal.now();
      const inputs = inputsOrReply(req.body, 'BatchInputSimplePublicObjectBatchInput', reply);
      if (inputs === undefined) return reply;
      const seen = new Map<string, string>();
      const ok: { checked: CheckedUpdate; traceId: string | undefined }[] = [];
      const failed: { failure: WriteFailure; traceId: string | undefined }[] = [];
      const missing: string[] = [];
      for (const input of inputs) {
        const traceId = traceIdOf(input);
        const id = String(input['id'] ?? '');
        const idProperty = typeof input['idProperty'] === 'string' ? input['idProperty'] : undefined;
        const props = isRecord(input['properties']) ? input['properties'] : {};
        const c = checkUpdate(ctx.portal, type, id, props, idProperty);
        if (!c.ok) {
          if (c.failure.kind === 'notFound') missing.push(id);
          else failed.push({ failure: c.failure, traceId });
          continue;
        }
        const clash = batchClash(ctx.portal, type, c.checked.values, seen, c.checked.id);
        if (clash !== undefined) failed.push({ failure: clash, traceId });
        else ok.push({ checked: c.checked, traceId });
      }
      const whole = wholeCallFailure(ctx, failed);
      if (whole !== undefined) return sendHubSpotError(reply, whole[0], whole[1]);
      await ctx.realism.recordDelay(inputs.length);
      const results = ok.flatMap(({ checked, traceId }) => {
        const r = commitUpdate(ctx.portal, type, checked);
        return r.ok ? [withTrace(toPublicObject(r.record, r.names, { nulls: false }), traceId)] : [];
      });
      const errors = [
        ...(missing.length > 0 ? [notFoundError(type, missing)] : []),
        ...failed.map((f) => batchError(ctx, f.failure, f.traceId)),
      ];
      return reply
        .code(errors.length > 0 ? 207 : 200)
        .send(batchAnswer(startedAt, results, errors, ctx.portal.now(), shuffleSeed(ctx)));
    },
  );

  app.post<{ Params: TypeParams; Body: unknown }>(
    `${route}/upsert`,
    { config: { kind: 'objects.batch.upsert' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      if (type.readOnly) return sendHubSpotError(reply, 400, readOnlyTypeBody(type));
      const startedAt = ctx.portal.now();
      const inputs = inputsOrReply(req.body, 'BatchInputSimplePublicObjectBatchInputUpsert', reply);
      if (inputs === undefined) return reply;
      for (const input of inputs) {
        const idProperty = input['idProperty'];
        if (
          typeof idProperty !== 'string' ||
          idProperty === 'hs_object_id' ||
          !isUniqueProperty(ctx.portal, type, idProperty)
        ) {
          return sendHubSpotError(
            reply,
            400,
            validationBody(
              `Upsert requires idProperty to name a unique property of ${type.singularName}; got ${String(idProperty)}`,
            ),
          );
        }
      }
      type Plan = (
        | { kind: 'create'; checked: CheckedCreate }
        | { kind: 'update'; checked: CheckedUpdate }
      ) & {
        traceId: string | undefined;
      };
      const seen = new Map<string, string>();
      const plans: Plan[] = [];
      const failed: { failure: WriteFailure; traceId: string | undefined }[] = [];
      inputs.forEach((input, i) => {
        const traceId = traceIdOf(input);
        const idProperty = String(input['idProperty']);
        const id = String(input['id'] ?? '');
        const props = isRecord(input['properties']) ? input['properties'] : {};
        const existing = findRecord(ctx.portal, type, id, idProperty);
        if (existing !== undefined) {
          const c = checkUpdate(ctx.portal, type, existing.id, props);
          const clash = c.ok ? batchClash(ctx.portal, type, c.checked.values, seen, existing.id) : undefined;
          if (!c.ok || clash !== undefined) failed.push({ failure: c.ok ? clash! : c.failure, traceId });
          else plans.push({ kind: 'update', checked: c.checked, traceId });
          return;
        }
        const c = checkCreate(ctx.portal, type, { ...props, [idProperty]: id });
        const clash = c.ok ? batchClash(ctx.portal, type, c.checked.values, seen, `input ${i}`) : undefined;
        if (!c.ok || clash !== undefined) failed.push({ failure: c.ok ? clash! : c.failure, traceId });
        else plans.push({ kind: 'create', checked: c.checked, traceId });
      });
      const whole = wholeCallFailure(ctx, failed);
      if (whole !== undefined) return sendHubSpotError(reply, whole[0], whole[1]);
      await ctx.realism.recordDelay(inputs.length);
      const results = plans.flatMap((p) => {
        if (p.kind === 'create') {
          const record = commitCreate(ctx.portal, type, p.checked);
          const view = toPublicObject(record, Object.keys(record.properties), { nulls: false });
          return [{ ...withTrace(view, p.traceId), new: true }];
        }
        const r = commitUpdate(ctx.portal, type, p.checked);
        return r.ok
          ? [{ ...withTrace(toPublicObject(r.record, r.names, { nulls: false }), p.traceId), new: false }]
          : [];
      });
      const errors = failed.map((f) => batchError(ctx, f.failure, f.traceId));
      return reply
        .code(errors.length > 0 ? 207 : 200)
        .send(batchAnswer(startedAt, results, errors, ctx.portal.now(), shuffleSeed(ctx)));
    },
  );

  app.post<{ Params: TypeParams; Body: unknown }>(
    `${route}/archive`,
    { config: { kind: 'objects.batch.archive' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      if (type.readOnly) return sendHubSpotError(reply, 400, readOnlyTypeBody(type));
      const inputs = inputsOrReply(req.body, 'BatchInputSimplePublicObjectId', reply);
      if (inputs === undefined) return reply;
      await ctx.realism.recordDelay(inputs.length);
      // Unknown ids are skipped: HubSpot answers 204 whatever was archived.
      for (const input of inputs) ctx.portal.records.archive(type.objectTypeId, String(input['id'] ?? ''));
      return reply.code(204).send();
    },
  );
}
