import type { ObjectMeta } from './meta.ts';
import type { SObjectDescribe } from './types.ts';

/** The describe `urls` of an object for one API version (the real answer names the request's version). */
export function objectUrls(meta: ObjectMeta, version: string, baseUrl: string): Record<string, string> {
  const base = `/services/data/v${version}/sobjects/${meta.name}`;
  return {
    compactLayouts: `${base}/describe/compactLayouts`,
    rowTemplate: `${base}/{ID}`,
    approvalLayouts: `${base}/describe/approvalLayouts`,
    uiDetailTemplate: `${baseUrl}/{ID}`,
    uiEditTemplate: `${baseUrl}/{ID}/e`,
    defaultValues: `${base}/defaultValues?recordTypeId&fields`,
    listviews: `${base}/listviews`,
    describe: `${base}/describe`,
    uiNewRecord: `${baseUrl}/${meta.keyPrefix}/e`,
    quickActions: `${base}/quickActions`,
    layouts: `${base}/describe/layouts`,
    sobject: base,
  };
}

/** `GET /sobjects/X/describe`: the stored describe with this version's urls. */
export function describeFor(meta: ObjectMeta, version: string, baseUrl: string): SObjectDescribe {
  const d = meta.describe;
  const layoutBase = `/services/data/v${version}/sobjects/${meta.name}/describe/layouts/`;
  return {
    ...d,
    // An auto-number's display format is kept on the field for inserts; describe does not show it.
    fields: d.fields.some((f) => 'displayFormat' in f)
      ? d.fields.map((f) => {
          const { displayFormat: _f, ...rest } = f as typeof f & { displayFormat?: string };
          return rest as typeof f;
        })
      : d.fields,
    recordTypeInfos: Array.isArray(d.recordTypeInfos)
      ? d.recordTypeInfos.map((r: { recordTypeId?: string; urls?: unknown }) => ({
          ...r,
          urls: { layout: `${layoutBase}${r.recordTypeId ?? ''}` },
        }))
      : [],
    urls: objectUrls(meta, version, baseUrl),
  };
}

/** One entry of describeGlobal's `sobjects` (also the `objectDescribe` of `GET /sobjects/X`). */
export function globalEntry(meta: ObjectMeta, version: string): Record<string, unknown> {
  const d = meta.describe;
  const base = `/services/data/v${version}/sobjects/${meta.name}`;
  const flag = (k: string, fallback = false): boolean =>
    typeof d[k] === 'boolean' ? (d[k] as boolean) : fallback;
  return {
    activateable: flag('activateable'),
    associateEntityType: null,
    associateParentEntity: null,
    createable: d.createable,
    custom: d.custom,
    customSetting: flag('customSetting'),
    deepCloneable: false,
    deletable: d.deletable,
    deprecatedAndHidden: flag('deprecatedAndHidden'),
    feedEnabled: flag('feedEnabled'),
    hasSubtypes: flag('hasSubtypes'),
    isInterface: false,
    isSubtype: flag('isSubtype'),
    keyPrefix: d.keyPrefix,
    label: d.label,
    labelPlural: d.labelPlural,
    layoutable: flag('layoutable', true),
    mergeable: flag('mergeable'),
    mruEnabled: flag('mruEnabled'),
    name: d.name,
    queryable: d.queryable,
    replicateable: flag('replicateable', true),
    retrieveable: flag('retrieveable', true),
    searchable: flag('searchable', true),
    triggerable: flag('triggerable', true),
    undeletable: flag('undeletable'),
    updateable: d.updateable,
    urls: { sobject: base, describe: `${base}/describe`, rowTemplate: `${base}/{ID}` },
  };
}
