import type { FastifyInstance } from 'fastify';
import type { SalesforceContext } from '../context.ts';
import { type ObjectMeta, toId18 } from '../org/index.ts';
import type { FieldDescribe } from '../org/types.ts';
import { NOT_FOUND, sendErrors, sendJson, versionOf } from './common.ts';
import { objectOf } from './sobjects.ts';

/**
 * Page layouts, compact layouts and approval layouts generated from the object's describe, in the
 * shapes of `describe/layouts`, `describe/namedLayouts/{name}`, `describe/compactLayouts` and
 * `describe/approvalLayouts`: one layout per object (and one per named layout, User's `UserAlt`),
 * its fields in two-column rows, the system fields in their own section, and a related list per
 * child relationship. No org has approval processes at first, so approval layouts are empty.
 */
const MASTER = '012000000000000AAA';
const SYSTEM = new Set([
  'Id',
  'IsDeleted',
  'CreatedDate',
  'CreatedById',
  'LastModifiedDate',
  'LastModifiedById',
  'SystemModstamp',
  'LastViewedDate',
  'LastReferencedDate',
  'LastActivityDate',
]);

function stableId(prefix: string, meta: ObjectMeta, n = 0): string {
  let h = 7;
  for (const c of `${meta.name}${n}`) h = (h * 33 + c.charCodeAt(0)) % 2176782336;
  return toId18(`${prefix}5g0000${h.toString(36).toUpperCase().padStart(6, '0')}`.slice(0, 15));
}

function item(f: FieldDescribe, tabOrder: number) {
  return {
    editableForNew: f.createable,
    editableForUpdate: f.updateable,
    label: f.label,
    layoutComponents: [
      { details: f, displayLines: f.type === 'textarea' ? 3 : 1, tabOrder, type: 'Field', value: f.name },
    ],
    placeholder: false,
    required: f.createable && !f.nillable && !f.defaultedOnCreate,
  };
}

const blank = {
  editableForNew: false,
  editableForUpdate: false,
  label: '',
  layoutComponents: [],
  placeholder: true,
  required: false,
};

function section(heading: string, fields: FieldDescribe[], id: string, start: number) {
  const rows = [];
  for (let i = 0; i < fields.length; i += 2) {
    const pair = fields.slice(i, i + 2).map((f, k) => item(f, start + i + k));
    if (pair.length === 1) pair.push(blank as never);
    rows.push({ layoutItems: pair, numItems: 2 });
  }
  return {
    collapsed: false,
    columns: 2,
    heading,
    layoutRows: rows,
    layoutSectionId: id,
    parentLayoutId: null,
    rows: rows.length,
    tabOrder: 'TopToBottom',
    useCollapsibleSection: false,
    useHeading: true,
  };
}

function layoutOf(ctx: SalesforceContext, meta: ObjectMeta, version: string, n = 0) {
  // Compound fields (addresses) stand for their parts, as on a real layout; Name is its own compound.
  const visible = meta.fields.filter((f) => !f.deprecatedAndHidden && f.type !== 'location');
  const main = visible.filter(
    (f) => !SYSTEM.has(f.name) && (!f.compoundFieldName || f.compoundFieldName === f.name),
  );
  const system = visible.filter((f) => ['CreatedById', 'LastModifiedById'].includes(f.name));
  const id = stableId('00h', meta, n);
  const detail = [
    section(`${meta.describe.label} Information`, main, stableId('01B', meta, n + 1), 0),
    section('System Information', system, stableId('01B', meta, n + 2), main.length),
  ];
  const edit = [
    section(
      `${meta.describe.label} Information`,
      main.filter((f) => f.createable || f.updateable),
      stableId('01B', meta, n + 3),
      0,
    ),
  ];
  const relatedLists = meta.describe.childRelationships
    .filter((r) => r.relationshipName !== null && ctx.org.object(r.childSObject)?.describe.queryable)
    .slice(0, 10)
    .map((r) => {
      const child = ctx.org.object(r.childSObject) as ObjectMeta;
      const name = child.fields.find((f) => f.nameField) ?? child.field('Id');
      return {
        accessLevelRequiredForCreate: null,
        buttons: [],
        columns:
          name === undefined
            ? []
            : [
                {
                  field: `${child.name}.${name.name}`,
                  fieldApiName: name.name,
                  format: null,
                  label: name.label,
                  lookupId: null,
                  name: name.name,
                  sortable: true,
                },
              ],
        custom: child.describe.custom,
        field: r.field,
        label: child.describe.labelPlural,
        limitRows: 5,
        name: r.relationshipName,
        sobject: child.name,
        sort: [{ ascending: false, column: 'LastModifiedDate' }],
      };
    });
  return {
    buttonLayoutSection: { detailButtons: [] },
    detailLayoutSections: detail,
    editLayoutSections: edit,
    feedView: null,
    highlightsPanelLayoutSection: null,
    id,
    multirowEditLayoutSections: [],
    offlineLinks: [],
    quickActionList: { quickActionListItems: [] },
    relatedContent: null,
    relatedLists,
    saveOptions: [],
    urls: { layout: `/services/data/v${version}/sobjects/${meta.name}/describe/layouts/${MASTER}` },
  };
}

function recordTypeMapping(meta: ObjectMeta, version: string, layoutId: string) {
  return {
    active: true,
    available: true,
    defaultRecordTypeMapping: true,
    developerName: 'Master',
    layoutId,
    master: true,
    name: 'Master',
    picklistsForRecordType: meta.fields
      .filter((f) => f.type === 'picklist' || f.type === 'multipicklist')
      .map((f) => ({ picklistName: f.name, picklistValues: f.picklistValues })),
    recordTypeId: MASTER,
    urls: { layout: `/services/data/v${version}/sobjects/${meta.name}/describe/layouts/${MASTER}` },
  };
}

function compactLayout(meta: ObjectMeta) {
  const name = meta.fields.find((f) => f.nameField);
  const picks = meta.fields
    .filter((f) => ['Phone', 'Email', 'Title', 'Type', 'OwnerId', 'StageName', 'Status'].includes(f.name))
    .slice(0, 3);
  const fields = [...(name === undefined ? [] : [name]), ...picks];
  return {
    actions: [],
    fieldItems: fields.map((f, i) => item(f, i)),
    id: null,
    imageItems: [],
    label: 'System Default',
    name: 'SYSTEM',
    objectType: meta.name,
  };
}

type Params = { version: string; sobject: string; id?: string; name?: string };

export function registerLayoutRoutes(app: FastifyInstance, ctx: SalesforceContext): void {
  const base = '/services/data/:version/sobjects/:sobject/describe';
  const namedOf = (meta: ObjectMeta): string[] =>
    ((meta.describe.namedLayoutInfos as Array<{ name: string }> | undefined) ?? []).map((n) => n.name);

  app.get<{ Params: Params }>(
    `${base}/layouts`,
    { config: { kind: 'rest.describe.layouts' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const meta = objectOf(ctx, request, reply);
      if (meta === null) return reply;
      if (!meta.describe.layoutable) return sendErrors(reply, 404, [NOT_FOUND]);
      const layout = layoutOf(ctx, meta, version);
      return sendJson(reply, 200, {
        layouts: [layout],
        recordTypeMappings: [recordTypeMapping(meta, version, layout.id)],
        recordTypeSelectorRequired: [false],
      });
    },
  );

  app.get<{ Params: Params }>(
    `${base}/layouts/:id`,
    { config: { kind: 'rest.describe.layouts' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const meta = objectOf(ctx, request, reply);
      if (meta === null) return reply;
      const id = request.params.id ?? '';
      if (id !== MASTER && id !== MASTER.slice(0, 15)) return sendErrors(reply, 404, [NOT_FOUND]);
      return sendJson(reply, 200, layoutOf(ctx, meta, version));
    },
  );

  app.get<{ Params: Params }>(
    `${base}/namedLayouts/:name`,
    { config: { kind: 'rest.describe.layouts' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const meta = objectOf(ctx, request, reply);
      if (meta === null) return reply;
      const n = namedOf(meta).findIndex((x) => x.toLowerCase() === (request.params.name ?? '').toLowerCase());
      if (n < 0) return sendErrors(reply, 404, [NOT_FOUND]);
      return sendJson(reply, 200, {
        layouts: [layoutOf(ctx, meta, version, n + 10)],
        recordTypeMappings: [],
        recordTypeSelectorRequired: [],
      });
    },
  );

  app.get<{ Params: Params }>(
    `${base}/compactLayouts`,
    { config: { kind: 'rest.describe.compactLayouts' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const meta = objectOf(ctx, request, reply);
      if (meta === null) return reply;
      const layout = compactLayout(meta);
      return sendJson(reply, 200, {
        compactLayouts: [layout],
        defaultCompactLayoutId: null,
        recordTypeCompactLayoutMappings: [
          {
            available: true,
            compactLayoutId: null,
            compactLayoutName: 'SYSTEM',
            recordTypeId: MASTER,
            recordTypeName: 'Master',
            urls: {
              compactLayout: `/services/data/v${version}/sobjects/${meta.name}/describe/compactLayouts/${MASTER}`,
            },
          },
        ],
        urls: { primary: `/services/data/v${version}/sobjects/${meta.name}/describe/compactLayouts/primary` },
      });
    },
  );

  app.get<{ Params: Params }>(
    `${base}/compactLayouts/:id`,
    { config: { kind: 'rest.describe.compactLayouts' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const meta = objectOf(ctx, request, reply);
      if (meta === null) return reply;
      const id = request.params.id ?? '';
      if (id !== 'primary' && id !== MASTER && id !== MASTER.slice(0, 15))
        return sendErrors(reply, 404, [NOT_FOUND]);
      return sendJson(reply, 200, compactLayout(meta));
    },
  );

  app.get<{ Params: Params }>(
    `${base}/approvalLayouts`,
    { config: { kind: 'rest.describe.approvalLayouts' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const meta = objectOf(ctx, request, reply);
      if (meta === null) return reply;
      return sendJson(reply, 200, { approvalLayouts: [] });
    },
  );
}
