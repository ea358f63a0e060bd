import type { ProviderDocNotes } from '../adapter.ts';

// What the API document says of Salesforce (src/http/plugins/openapi.ts adds each route's note after
// its description): Markdown fragments, each shown only where Salesforce is registered.

/** How a large write is carried (docs/salesforce-writes.md), the same for insert, update and delete. */
const WRITE_PLAN =
  'the service picks sObject Collections or Bulk API 2.0 by size and, from 2 000 records on, by the org’s daily API allowance left (Collections, the fastest, while at least half is left; Bulk, the fewest calls, below), and names it and why in the `X-CRM-Proxy-Interface` response header (`bulk2; reason=allowance-12%-left`); the same request header (`collections` | `bulk2`) forces one.';

export const SALESFORCE_DOC: ProviderDocNotes = {
  routes: {
    insertRecords: WRITE_PLAN,
    updateRecords: WRITE_PLAN,
    deleteRecords: WRITE_PLAN,
    deleteObjectRecords:
      'the same as `/v1/object/delete` (its ids name their object; the name is checked for form only).',
    getRecords:
      'up to 10 000 ids; each record has `attributes`, `Id` and the requested fields (all fields when `fields` is absent or empty). Unknown fields: 400 `unknown_field` naming the closest real field. Ids that do not exist, or that are not Salesforce ids, answer `null` at their place; duplicates are answered at each place.',
    addCustomField:
      '`data` is a field definition (name, type, label; `length` for Text; `valueSet` for Picklist); answers `{data, msg}`.',
    describeObject:
      'its sObject Describe result, unchanged (`fields`, `childRelationships`, `recordTypeInfos`, …).',
    describeInstance: 'its Describe Global result, unchanged (cached per connection for a few minutes).',
  },
};
