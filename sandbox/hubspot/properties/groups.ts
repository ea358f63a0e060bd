import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, sendHubSpotError } from '../errors.ts';
import { archivedParam, isRecord, typeOrReply } from '../objects/http.ts';
import { checkName, missingAttributes, reject } from './rules.ts';

interface TypeParams {
  objectType: string;
}
interface GroupParams extends TypeParams {
  groupName: string;
}

const PREFIX = '/crm/v3/properties';

const groupNotFound = (name: string) =>
  hubspotError({ message: `Property group ${name} does not exist`, category: 'OBJECT_NOT_FOUND' });

/** Property groups (`PropertyGroup`: name, label, displayOrder, archived). */
export function registerGroupRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  app.get<{ Params: TypeParams; Querystring: Record<string, unknown> }>(
    `${PREFIX}/:objectType/groups`,
    { config: { kind: 'properties.groups.list' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      return {
        results: ctx.portal.properties.listGroups(type.objectTypeId, {
          archived: archivedParam(req.query['archived']),
        }),
      };
    },
  );

  app.get<{ Params: GroupParams }>(
    `${PREFIX}/:objectType/groups/:groupName`,
    { config: { kind: 'properties.groups.get' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const g = ctx.portal.properties.getGroup(type.objectTypeId, req.params.groupName);
      return g ?? sendHubSpotError(reply, 404, groupNotFound(req.params.groupName));
    },
  );

  app.post<{ Params: TypeParams }>(
    `${PREFIX}/:objectType/groups`,
    { config: { kind: 'properties.groups.create' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const body = isRecord(req.body) ? req.body : {};
      const rejection =
        missingAttributes('PropertyGroupCreate', body, ['label', 'name']) ??
        checkName(String(body['name']), 'Property group');
      if (rejection !== null) return sendHubSpotError(reply, rejection.status, rejection.body);
      const created = ctx.portal.properties.createGroup(type.objectTypeId, {
        name: String(body['name']),
        label: String(body['label']),
        ...(typeof body['displayOrder'] === 'number' ? { displayOrder: body['displayOrder'] } : {}),
      });
      if (!created.ok) {
        return sendHubSpotError(
          reply,
          409,
          hubspotError({
            message: `A property group named '${String(body['name'])}' already exists.`,
            category: 'OBJECT_ALREADY_EXISTS',
          }),
        );
      }
      return reply.code(201).send(created.group);
    },
  );

  app.patch<{ Params: GroupParams }>(
    `${PREFIX}/:objectType/groups/:groupName`,
    { config: { kind: 'properties.groups.update' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const body = isRecord(req.body) ? req.body : {};
      const patch = {
        ...(typeof body['label'] === 'string' ? { label: body['label'] } : {}),
        ...(typeof body['displayOrder'] === 'number' ? { displayOrder: body['displayOrder'] } : {}),
      };
      const g = ctx.portal.properties.updateGroup(type.objectTypeId, req.params.groupName, patch);
      return g ?? sendHubSpotError(reply, 404, groupNotFound(req.params.groupName));
    },
  );

  app.delete<{ Params: GroupParams }>(
    `${PREFIX}/:objectType/groups/:groupName`,
    { config: { kind: 'properties.groups.archive' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const { groupName } = req.params;
      if (ctx.portal.properties.getGroup(type.objectTypeId, groupName) === undefined) {
        return sendHubSpotError(reply, 404, groupNotFound(groupName));
      }
      // A group still holding live properties cannot go (they would be left without a group).
      if (ctx.portal.properties.list(type.objectTypeId).some((p) => p.groupName === groupName)) {
        const r = reject(`Property group ${groupName} still contains properties and cannot be archived.`);
        return sendHubSpotError(reply, r.status, r.body);
      }
      ctx.portal.properties.archiveGroup(type.objectTypeId, groupName);
      return reply.code(204).send();
    },
  );
}
