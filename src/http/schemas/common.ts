import { type Static, Type } from 'typebox';

/**
 * Object names reach CRM URLs, so they are constrained here already to what any built-in CRM
 * accepts (API names and numeric type ids); the provider's own pattern is checked again per connection.
 */
export const ObjectNameParams = Type.Object(
  {
    object_name: Type.String({
      pattern: '^(?:[A-Za-z][A-Za-z0-9_]{0,79}|[0-9]{1,4}-[0-9]{1,12})$',
      description: 'API name of the object: {{crm.objectNames}}.',
    }),
  },
  { additionalProperties: false },
);
export type ObjectNameParams = Static<typeof ObjectNameParams>;

export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable snake_case code.' }),
      message: Type.String({ description: 'What went wrong and how to fix it.' }),
      details: Type.Array(Type.Record(Type.String(), Type.Unknown())),
    }),
    request_id: Type.String({ description: 'Also in the X-Request-Id header.' }),
  },
  { description: 'Request-level failure.' },
);

/** A record: field name → value; field names are case-insensitive (the CRM's canonical casing on output). */
export const CrmRecord = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Field name → value. Field names are case-insensitive.',
});

export const RecordResult = Type.Object(
  {
    id: Type.Union([Type.String(), Type.Null()], {
      description: 'The record id; null for a new record that was not created.',
    }),
    success: Type.Boolean(),
    errors: Type.Array(
      Type.Object({ statusCode: Type.String(), message: Type.String(), fields: Type.Array(Type.String()) }),
    ),
  },
  { description: 'Per-record result, in the order sent; errors keep Salesforce’s own entries.' },
);

export const MAX_RECORDS = 10_000;
export const MAX_IDS = 10_000;
