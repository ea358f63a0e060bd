import { type Static, Type } from 'typebox';
import { CrmRecord, MAX_IDS, MAX_RECORDS } from './common.ts';

const Id = Type.String({ minLength: 1, maxLength: 255, description: 'Record id.' });
const FieldName = Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9_.]+$' });

export const InsertBody = Type.Object(
  {
    data: Type.Array(CrmRecord, {
      minItems: 1,
      maxItems: MAX_RECORDS,
      description: `Records to create: 1 to ${MAX_RECORDS}.`,
    }),
  },
  { additionalProperties: false },
);
export type InsertBody = Static<typeof InsertBody>;

export const UpdateBody = Type.Object(
  {
    data: Type.Array(
      Type.Intersect([CrmRecord, Type.Object({ id: Id })], {
        description: 'A record with its `id`; the fields sent overwrite the stored values.',
      }),
      {
        minItems: 1,
        maxItems: MAX_RECORDS,
        description: `Records to change: 1 to ${MAX_RECORDS}, each with \`id\`.`,
      },
    ),
  },
  { additionalProperties: false },
);
export type UpdateBody = Static<typeof UpdateBody>;

export const UpsertBody = Type.Object(
  {
    data: Type.Array(CrmRecord, { minItems: 1, maxItems: 1, description: 'Exactly one record.' }),
    match_key: Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[A-Za-z][A-Za-z0-9_]*$',
      description: 'Field to match on: `Id` or an external-id custom field.',
    }),
  },
  { additionalProperties: false },
);
export type UpsertBody = Static<typeof UpsertBody>;

export const DeleteBody = Type.Object(
  {
    data: Type.Object(
      { ids: Type.Array(Id, { minItems: 1, maxItems: MAX_IDS, description: `1 to ${MAX_IDS} ids.` }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type DeleteBody = Static<typeof DeleteBody>;

export const GetBody = Type.Object(
  {
    data: Type.Object(
      {
        ids: Type.Array(Id, {
          minItems: 1,
          maxItems: MAX_IDS,
          description: `Ids to read: up to ${MAX_IDS} on Salesforce, up to 100 on HubSpot.`,
        }),
        fields: Type.Optional(
          Type.Array(FieldName, {
            maxItems: 1000,
            description: 'Fields to return; absent or empty: all fields.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type GetBody = Static<typeof GetBody>;

export const SoqlBody = Type.Object(
  {
    data: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100_000,
        description:
          'A SOQL query. It is sent in the URL of Salesforce’s query resource, so once URL-encoded it may take at most 14 336 bytes (`query_too_long` otherwise).',
      }),
    ),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, description: '`next_cursor` of a previous answer.' }),
    ),
  },
  { additionalProperties: false, description: 'Either `data` (a new query) or `cursor` (the next page).' },
);
export type SoqlBody = Static<typeof SoqlBody>;

export const CustomFieldBody = Type.Object(
  {
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
  },
  { additionalProperties: false },
);
export type CustomFieldBody = Static<typeof CustomFieldBody>;
