import { type Static, type TProperties, Type } from 'typebox';
import { CrmRecord, MAX_IDS, MAX_RECORDS } from './common.ts';

const Id = Type.String({ minLength: 1, maxLength: 255, description: 'Record id.' });
const FieldName = Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9_.]+$' });
const Closed = { additionalProperties: false };

/** A closed object: the request bodies and their `data` take no field they do not name. */
const closed = <T extends TProperties>(fields: T, description?: string) =>
  Type.Object(fields, description === undefined ? Closed : { ...Closed, description });
const cursor = (maxLength: number) =>
  Type.Optional(Type.String({ minLength: 1, maxLength, description: '`next_cursor` of a previous answer.' }));

export const InsertBody = closed({
  data: Type.Array(CrmRecord, {
    minItems: 1,
    maxItems: MAX_RECORDS,
    description: `Records to create: 1 to ${MAX_RECORDS}.`,
  }),
});

export const UpdateBody = closed({
  data: Type.Array(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'A record with its id under `id` in any case (`Id`, `ID`), e.g. as get returned it (`attributes` and, for HubSpot, the `properties` wrapper and the read-only values are taken apart); the fields sent overwrite the stored values.',
    }),
    {
      minItems: 1,
      maxItems: MAX_RECORDS,
      description: `Records to change: 1 to ${MAX_RECORDS}, each with its id.`,
    },
  ),
});

export const UpsertBody = closed({
  data: Type.Array(CrmRecord, { minItems: 1, maxItems: 1, description: 'Exactly one record.' }),
  match_key: Type.String({
    minLength: 1,
    maxLength: 255,
    pattern: '^[A-Za-z][A-Za-z0-9_]*$',
    description:
      'Field to match on: `Id`, the CRM’s own upsert key (an external-id field, a unique property), or any other field (looked up first).',
  }),
});

export const DeleteBody = closed({
  data: Type.Union([
    closed({ ids: Type.Array(Id, { minItems: 1, maxItems: MAX_IDS, description: `1 to ${MAX_IDS} ids.` }) }),
    Type.Array(CrmRecord, {
      minItems: 1,
      maxItems: MAX_IDS,
      description: `Or 1 to ${MAX_IDS} records, each with its id under \`id\` in any case (as get returned them).`,
    }),
  ]),
});

export const GetBody = closed({
  data: closed({
    ids: Type.Array(Id, {
      minItems: 1,
      maxItems: MAX_IDS,
      description: 'Ids to read, up to the CRM’s own limit per request (see its note above).',
    }),
    fields: Type.Optional(
      Type.Array(FieldName, {
        maxItems: 1000,
        description: 'Fields to return; absent or empty: all fields.',
      }),
    ),
    propertiesWithHistory: Type.Optional(
      Type.Array(FieldName, {
        maxItems: 1000,
        description:
          'Properties whose history (every value with its timestamp and source) each record also carries, on CRMs that keep property history (see their note above).',
      }),
    ),
  }),
});

export const SoqlBody = closed(
  {
    data: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100_000,
        description:
          'A SOQL query. It is sent in the URL of Salesforce’s query resource, so once URL-encoded it may take at most 14 336 bytes (`query_too_long` otherwise).',
      }),
    ),
    cursor: cursor(2000),
  },
  'Either `data` (a new query) or `cursor` (the next page).',
);

export const CustomFieldBody = closed({
  data: Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z][A-Za-z0-9_]*$' }),
      label: Type.String({ minLength: 1, maxLength: 255 }),
      type: Type.String({ minLength: 1, maxLength: 100 }),
      length: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 131_072, description: 'Salesforce Text: required.' }),
      ),
      valueSet: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), { description: 'Salesforce Picklist values.' }),
      ),
      fieldType: Type.Optional(Type.String({ description: 'HubSpot: required.' })),
      groupName: Type.Optional(Type.String({ description: 'HubSpot: required.' })),
    },
    {
      additionalProperties: true,
      description:
        'Salesforce: name, type, label, `length` for Text, `valueSet` for Picklist. HubSpot: name, label, type, fieldType, groupName.',
    },
  ),
});

const Scalar = Type.Union([Type.String({ maxLength: 3000 }), Type.Number(), Type.Boolean()]);
const OPERATORS =
  'EQ NEQ LT LTE GT GTE BETWEEN IN NOT_IN HAS_PROPERTY NOT_HAS_PROPERTY CONTAINS_TOKEN NOT_CONTAINS_TOKEN';

const Filter = closed({
  propertyName: FieldName,
  operator: Type.Union(OPERATORS.split(' ').map((op) => Type.Literal(op))),
  value: Type.Optional(Scalar),
  highValue: Type.Optional(Scalar),
  values: Type.Optional(Type.Array(Scalar, { maxItems: 100 })),
});

const Sort = Type.Union([
  Type.String({ minLength: 1, maxLength: 256, pattern: '^-?[A-Za-z0-9_.]+$' }),
  closed({
    propertyName: FieldName,
    direction: Type.Union([Type.Literal('ASCENDING'), Type.Literal('DESCENDING')]),
  }),
]);

export const SearchBody = closed(
  {
    data: Type.Optional(
      closed({
        filterGroups: Type.Optional(
          Type.Array(closed({ filters: Type.Array(Filter, { minItems: 1, maxItems: 6 }) }), {
            maxItems: 5,
            description: 'Filter groups: any group matches (OR); within a group every filter (AND).',
          }),
        ),
        sorts: Type.Optional(
          Type.Array(Sort, {
            maxItems: 1,
            description: 'One sort: `"name"`, `"-name"` or `{propertyName, direction}`.',
          }),
        ),
        properties: Type.Optional(
          Type.Array(FieldName, { maxItems: 1000, description: 'Properties to return.' }),
        ),
        query: Type.Optional(
          Type.String({
            maxLength: 3000,
            description: 'Text searched in the default searchable properties.',
          }),
        ),
        limit: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 10_000, description: 'Records per answer (default 2 000).' }),
        ),
      }),
    ),
    cursor: cursor(65_536),
  },
  'Either `data` (a new search) or `cursor` (the next page).',
);

const ObjectName = Type.String({ minLength: 1, maxLength: 100, description: 'An object type name.' });

export const AssociationsBody = closed({
  data: closed({
    ids: Type.Array(Id, { minItems: 1, maxItems: MAX_IDS, description: `1 to ${MAX_IDS} record ids.` }),
    to: ObjectName,
  }),
});

export const AssociateBody = closed({
  data: Type.Array(
    closed({
      id: Id,
      to: ObjectName,
      to_id: Id,
      label: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 255,
          description: 'The association label; absent: the default type.',
        }),
      ),
    }),
    { minItems: 1, maxItems: MAX_RECORDS, description: `1 to ${MAX_RECORDS} links.` },
  ),
});

/** An ISO 8601 date or date-time; a value that is not one is refused naming the accepted forms. */
export const INSTANT_PATTERN =
  '^\\d{4}-\\d\\d-\\d\\d(T\\d\\d:\\d\\d(:\\d\\d(\\.\\d+)?)?(Z|[+-]\\d\\d:?\\d\\d)?)?$';

const Instant = (what: string) =>
  Type.String({
    maxLength: 40,
    pattern: INSTANT_PATTERN,
    description: `ISO 8601 date or date-time: entries ${what} it.`,
  });

export const AuditLogsBody = closed(
  {
    data: Type.Optional(
      closed({
        occurred_after: Type.Optional(Instant('strictly after')),
        occurred_before: Type.Optional(Instant('strictly before')),
        acting_user_ids: Type.Optional(
          Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), {
            minItems: 1,
            maxItems: 100,
            description: 'Entries made by any of these CRM users (HubSpot user ids).',
          }),
        ),
        order: Type.Optional(
          Type.Union([Type.Literal('oldest_first'), Type.Literal('newest_first')], {
            description: 'By the time of the action; default `oldest_first`.',
          }),
        ),
        limit: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 10_000, description: 'Entries per answer (default 1 000).' }),
        ),
      }),
    ),
    cursor: cursor(65_536),
  },
  'Either `data` (filters of a new read; absent: every entry) or `cursor` (the next page).',
);
export type AuditLogsBody = Static<typeof AuditLogsBody>;
