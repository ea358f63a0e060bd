import { Type } from 'typebox';

/** Object names reach CRM URLs: limited to what any built-in CRM accepts; the provider checks its own too. */
export const ObjectNameParams = Type.Object(
  {
    object_name: Type.String({
      pattern: '^(?:[A-Za-z][A-Za-z0-9_]{0,79}|[0-9]{1,4}-[0-9]{1,12})$',
      description:
        'API name of the object, as the connection’s CRM names it (`Account`, `Invoice__c`, `contacts`, `0-1`, `p_pets`).',
    }),
  },
  { additionalProperties: false },
);

/** A record: field name → value; field names are case-insensitive (the CRM's canonical casing on output). */
export const CrmRecord = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Field name → value. Field names are case-insensitive.',
});

export const MAX_RECORDS = 10_000;
export const MAX_IDS = 10_000;
