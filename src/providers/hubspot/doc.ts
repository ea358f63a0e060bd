import type { ProviderDocNotes } from '../adapter.ts';

// What the API document says of HubSpot (src/http/plugins/openapi.ts adds each route's note after
// its description): Markdown fragments, each shown only where HubSpot is registered.

export const HUBSPOT_DOC: ProviderDocNotes = {
  routes: {
    insertRecords:
      'batch create calls of 100 in parallel under the connection’s rate-limit pacing, results mapped back by `objectWriteTraceId`; values formatted for each property’s type (enumerations checked against the options with the closest one suggested); a duplicate unique value is that record’s `CONFLICT`.',
    updateRecords:
      'batch update calls of 100 in parallel under the connection’s pacing, values formatted as for insert, malformed or missing ids failing their record only, an id repeated in one request written in order.',
    deleteRecords: 'its ids do not name their object type: use `/v1/object/delete/{object_name}` (400 here).',
    deleteObjectRecords:
      'needed, since HubSpot ids do not name their object type; the ids are read first (HubSpot’s batch archive answers the same for ids that do not exist), live ones archived in batches of 100, others fail with `OBJECT_NOT_FOUND`.',
    getRecords:
      'up to 100 ids read in one call; records as HubSpot shapes them (`id`, `properties`, `createdAt`, `updatedAt`, `archived`); all properties when `fields` is absent or empty, else those plus the system properties; `null` for missing ids with HubSpot’s own error entries in `errors`. Object names: plural names (`contacts`, `line_items`, `goals`, …), type ids, and custom objects by `2-…`, `p_…` or plain name. `propertiesWithHistory` (HubSpot, at most 50 ids) adds each record’s history of those properties; the account’s audit log is `POST /v1/audit_logs` (`audit_logs` as an object name: 422 pointing to both). `owners`, `deal_pipelines`, `ticket_pipelines`, `deal_stages`, `ticket_stages`: by id, in HubSpot’s shapes (archived owners too). Associations: 422 `object_not_supported`.',
    addCustomField:
      '`data` is a property definition (name, label, type, fieldType, groupName); answers `{data, message}`.',
    describeObject:
      "`name`, `objectTypeId`, `custom` and `properties`, each property as HubSpot's properties API gives it (`name`, `label`, `type`, `fieldType`, `options`, …).",
    describeInstance: "the standard object types and the account's custom objects from the schemas API.",
  },
};
