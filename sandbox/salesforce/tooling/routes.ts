import type { FastifyInstance, FastifyReply } from 'fastify';
import { globalEntry } from '../org/describe.ts';
import { type Org, OrgError } from '../org/index.ts';
import { SoqlError } from '../query/errors.ts';
import { query, queryColumns } from '../query/execute.ts';
import { ToolingEntities } from './entities.ts';
import { registerFieldPermissionRules } from './fls.ts';
import { fieldSpecFromMetadata, type ToolingError } from './metadata.ts';

export interface ToolingContext {
  org: Org;
  oauth: { verifyAccessToken(token: string): { ok: true; userId: string } | { ok: false } };
  onReset(fn: () => void): void;
}

const BASE = '/services/data/:version/tooling';
/** The Tooling entities the sandbox serves (describe, query, and creation for the first two). */
const TOOLING_ENTITIES = ['CustomField', 'CustomObject', 'EntityDefinition'];
type V = { version: string };

const version = (segment: string): string | null => /^v(\d{2,3}\.\d)$/.exec(segment)?.[1] ?? null;

function errors(reply: FastifyReply, status: number, list: ToolingError[]) {
  return reply
    .code(status)
    .header('content-type', 'application/json;charset=UTF-8')
    .send(JSON.stringify(list));
}
const notFound = (reply: FastifyReply) =>
  errors(reply, 404, [
    { errorCode: 'NOT_FOUND', message: 'The requested resource does not exist', fields: [] },
  ]);

const asObject = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * Tooling API: CustomField and CustomObject creation, reads, and Tooling SOQL over CustomField,
 * CustomObject and EntityDefinition. A field created here gets no field-level security: as in
 * Salesforce, only FieldPermissions rows (created through the data API) grant it. The emulator
 * does not hide fields without FLS from describe or SOQL; tests check the FieldPermissions rows.
 */
export function registerToolingRoutes(app: FastifyInstance, ctx: ToolingContext): ToolingEntities {
  const entities = new ToolingEntities(ctx.org);
  ctx.onReset(() => entities.reset());
  registerFieldPermissionRules(ctx.org);

  const userOf = (auth: string | undefined): string => {
    const token = auth === undefined ? undefined : /^(?:Bearer|OAuth)\s+(.+)$/i.exec(auth)?.[1];
    const v = token === undefined ? null : ctx.oauth.verifyAccessToken(token);
    return v?.ok ? v.userId : ctx.org.adminUserId;
  };
  const created = (reply: FastifyReply, id: string) =>
    reply.code(201).send({ id, success: true, errors: [], warnings: [], infos: [] });

  app.post<{ Params: V; Body: unknown }>(
    `${BASE}/sobjects/CustomField`,
    { config: { kind: 'tooling.customField.create' } },
    async (req, reply) => {
      if (version(req.params.version) === null) return notFound(reply);
      const body = asObject(req.body) ?? {};
      const fullName = typeof body.FullName === 'string' ? body.FullName : '';
      const metadata = asObject(body.Metadata);
      if (fullName === '' || metadata === null) {
        const missing = fullName === '' ? 'FullName' : 'Metadata';
        return errors(reply, 400, [
          {
            errorCode: 'REQUIRED_FIELD_MISSING',
            message: `Required fields are missing: [${missing}]`,
            fields: [missing],
          },
        ]);
      }
      const dot = fullName.indexOf('.');
      const objectName = fullName.slice(0, dot);
      const fieldName = fullName.slice(dot + 1);
      if (dot < 1 || !fieldName.endsWith('__c')) {
        return errors(reply, 400, [
          {
            errorCode: 'FIELD_INTEGRITY_EXCEPTION',
            message: `Invalid FullName ${fullName}: a custom field is named <Object>.<Name>__c`,
            fields: ['FullName'],
          },
        ]);
      }
      const spec = fieldSpecFromMetadata(fieldName, metadata);
      if (!spec.ok) return errors(reply, 400, [spec.error]);
      let canonical: string;
      try {
        const field = ctx.org.addCustomField(objectName, spec.spec);
        canonical = `${ctx.org.schema.get(objectName)?.name ?? objectName}.${field.name}`;
      } catch (e) {
        if (e instanceof OrgError)
          return errors(reply, e.status, [{ errorCode: e.errorCode, message: e.message, fields: [] }]);
        throw e;
      }
      const id = entities.fieldId(canonical);
      entities.metadata.set(id, {
        fullName: canonical,
        metadata,
        createdById: userOf(req.headers.authorization),
        createdDate: new Date().toISOString().replace('Z', '+0000'),
      });
      return created(reply, id);
    },
  );

  app.post<{ Params: V; Body: unknown }>(
    `${BASE}/sobjects/CustomObject`,
    { config: { kind: 'tooling.customObject.create' } },
    async (req, reply) => {
      if (version(req.params.version) === null) return notFound(reply);
      const body = asObject(req.body) ?? {};
      const fullName = typeof body.FullName === 'string' ? body.FullName : '';
      const metadata = asObject(body.Metadata);
      if (!fullName.endsWith('__c') || metadata === null) {
        return errors(reply, 400, [
          {
            errorCode: 'FIELD_INTEGRITY_EXCEPTION',
            message: 'A custom object needs a FullName ending in __c and Metadata',
            fields: [],
          },
        ]);
      }
      const label = metadata.label;
      const plural = metadata.pluralLabel;
      if (typeof label !== 'string' || typeof plural !== 'string') {
        return errors(reply, 400, [
          {
            errorCode: 'FIELD_INTEGRITY_EXCEPTION',
            message: "Must specify 'label' and 'pluralLabel' for a CustomObject",
            fields: [],
          },
        ]);
      }
      const nameField = asObject(metadata.nameField);
      if (nameField === null || typeof nameField.label !== 'string') {
        return errors(reply, 400, [
          {
            errorCode: 'FIELD_INTEGRITY_EXCEPTION',
            message: "Must specify 'nameField' for a CustomObject",
            fields: [],
          },
        ]);
      }
      try {
        const auto = String(nameField.type ?? 'Text').toLowerCase() === 'autonumber';
        if (auto && typeof nameField.displayFormat !== 'string') {
          return errors(reply, 400, [
            {
              errorCode: 'FIELD_INTEGRITY_EXCEPTION',
              message: 'An AutoNumber nameField needs a \'displayFormat\', e.g. "INV-{0000}"',
              fields: [],
            },
          ]);
        }
        const meta = ctx.org.addCustomObject({
          name: fullName,
          label,
          labelPlural: plural,
          nameField: {
            label: nameField.label as string,
            ...(auto ? { displayFormat: nameField.displayFormat as string } : {}),
          },
        });
        const id = entities.objectId(meta.name);
        entities.metadata.set(id, {
          fullName: meta.name,
          metadata,
          createdById: userOf(req.headers.authorization),
          createdDate: new Date().toISOString().replace('Z', '+0000'),
        });
        return created(reply, id);
      } catch (e) {
        if (e instanceof OrgError)
          return errors(reply, e.status, [{ errorCode: e.errorCode, message: e.message, fields: [] }]);
        throw e;
      }
    },
  );

  /** Tooling describe global: the entities this Tooling API serves, with their Tooling URLs. */
  app.get<{ Params: V }>(
    `${BASE}/sobjects`,
    { config: { kind: 'tooling.describeGlobal' } },
    async (req, reply) => {
      const v = version(req.params.version);
      if (v === null) return notFound(reply);
      const host = entities.host();
      const sobjects = TOOLING_ENTITIES.map((n) => host.object(n))
        .filter((m) => m !== undefined)
        .map((m) => {
          const entry = globalEntry(m, v);
          const urls = entry.urls as Record<string, string>;
          entry.urls = Object.fromEntries(
            Object.entries(urls).map(([k, u]) => [k, u.replace('/sobjects/', '/tooling/sobjects/')]),
          );
          return entry;
        });
      return { encoding: 'UTF-8', maxBatchSize: 200, sobjects };
    },
  );

  app.get<{ Params: V & { type: string } }>(
    `${BASE}/sobjects/:type`,
    { config: { kind: 'tooling.sobject.info' } },
    async (req, reply) => {
      const v = version(req.params.version);
      if (v === null) return notFound(reply);
      const meta = entities.host().object(req.params.type);
      if (meta === undefined) return notFound(reply);
      const entry = globalEntry(meta, v);
      return { objectDescribe: entry, recentItems: [] };
    },
  );

  for (const path of [`${BASE}/sobjects/:type/describe`, `${BASE}/sobjects/:type/describe/`]) {
    app.get<{ Params: V & { type: string } }>(
      path,
      { config: { kind: 'tooling.sobject.describe' } },
      async (req, reply) => {
        if (version(req.params.version) === null) return notFound(reply);
        const meta = entities.host().object(req.params.type);
        return meta === undefined ? notFound(reply) : meta.describe;
      },
    );
  }

  app.get<{ Params: V & { type: string; id: string } }>(
    `${BASE}/sobjects/:type/:id`,
    { config: { kind: 'tooling.sobject.get' } },
    async (req, reply) => {
      const v = version(req.params.version);
      if (v === null) return notFound(reply);
      const host = entities.host();
      const meta = host.object(req.params.type);
      const found = host.lookup(req.params.id);
      if (meta === undefined || found === undefined || found.table.meta !== meta) return notFound(reply);
      const stored = entities.metadata.get(req.params.id);
      const { IsDeleted: _d, ...fields } = found.rec;
      return {
        attributes: {
          type: meta.name,
          url: `/services/data/v${v}/tooling/sobjects/${meta.name}/${req.params.id}`,
        },
        ...fields,
        Metadata:
          stored === undefined ? null : { ...stored.metadata, fullName: stored.fullName.split('.').pop() },
      };
    },
  );

  for (const path of [`${BASE}/query`, `${BASE}/query/`]) {
    app.get<{ Params: V; Querystring: { q?: string; columns?: string } }>(
      path,
      { config: { kind: 'tooling.query' } },
      async (req, reply) => {
        const v = version(req.params.version);
        if (v === null) return notFound(reply);
        const soql = req.query.q ?? '';
        try {
          // The column metadata answer, as on /query (the Salesforce CLI asks for it first).
          if (req.query.columns === 'true') return queryColumns(entities.host(), soql, v);
          const run = query(entities.host(), soql, { version: v });
          const records = run.records.map((r) => ({
            ...r,
            attributes: {
              ...r.attributes,
              url: r.attributes.url?.replace('/sobjects/', '/tooling/sobjects/'),
            },
          }));
          const entityTypeName = /\bfrom\s+(\w+)/i.exec(soql)?.[1] ?? null;
          return {
            size: run.totalSize,
            totalSize: run.totalSize,
            done: true,
            queryLocator: null,
            entityTypeName,
            records,
          };
        } catch (e) {
          if (e instanceof SoqlError) {
            return errors(reply, 400, [{ errorCode: e.errorCode, message: e.message, fields: [] }]);
          }
          throw e;
        }
      },
    );
  }
  return entities;
}
