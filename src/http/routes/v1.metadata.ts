import { Type } from 'typebox';
import { ApiError, unknownObject } from '../../errors/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import { runOperation } from '../../operations/deps.ts';
import { directWrite } from '../durable.ts';
import { principalOf } from '../plugins/auth.ts';
import { answers, dataAnswer } from '../schemas/answers.ts';
import { CustomFieldBody } from '../schemas/bodies.ts';
import { ObjectNameParams } from '../schemas/common.ts';
import { KEYED_WRITE_NOTE, KeyedWriteHeaders } from '../schemas/write-headers.ts';
import type { ApiApp, RouteServices } from './types.ts';

// The describes and the address countries (no input but the path), and adding a custom field.

/** Reads without input take no body; `{}` is tolerated, anything else is a mistake worth reporting. */
function ensureNoBody(body: unknown, operation = 'Describe'): void {
  if (body === undefined || body === null) return;
  if (isRecord(body) && Object.keys(body).length === 0) return;
  throw new ApiError('invalid_body', `${operation} takes no request body. Send no body, or {}.`, {
    details: [{ path: '/', message: 'must be empty' }],
  });
}

const DescribeResponse = dataAnswer(
  Type.Record(Type.String(), Type.Unknown(), {
    description:
      "Salesforce: its Describe Global result, unchanged (`encoding`, `maxBatchSize`, `sobjects`). HubSpot: `objects`, the standard object types and the account's custom objects (`name`, `objectTypeId`, `custom`).",
  }),
  'The global describe.',
);

const Flags = {
  active: Type.Boolean({ description: 'Usable in records.' }),
  visible: Type.Boolean({
    description:
      'Shown to users. From the describe only `active` is known, so `visible` equals `active` for `org_picklists`.',
  }),
};

const CountriesResponse = dataAnswer(
  Type.Object({
    source: Type.Union([Type.Literal('org_picklists'), Type.Literal('iso_default')], {
      description:
        "`org_picklists`: the org's State and Country/Territory Picklists. `iso_default`: the org has them off; the standard ISO 3166 list.",
    }),
    countries: Type.Array(
      Type.Object({
        code: Type.String({ description: 'ISO 3166-1 alpha-2 code (the picklist value).' }),
        label: Type.String(),
        ...Flags,
        states: Type.Array(
          Type.Object({
            code: Type.String({ description: 'The state code as Salesforce stores it (`CA`, `NSW`).' }),
            label: Type.String(),
            ...Flags,
          }),
        ),
      }),
    ),
  }),
  'The country list.',
);

export function register(app: ApiApp, ctx: RouteServices): void {
  describeRoutes(app, ctx);
  countriesRoute(app, ctx);
  customFieldRoute(app, ctx);
}

/** The describes: the whole instance and one object. */
function describeRoutes(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/describe',
    {
      schema: {
        operationId: 'describeInstance',
        'x-crm-operation': 'describe',
        summary: 'Describe the instance',
        description: 'Lists every object of the connected account in `data`. No request body.',
        tags: ['Describe'],
        response: answers({ 200: DescribeResponse }, [400, 422, 502, 503]),
      },
    },
    async (request) => {
      ensureNoBody(request.body);
      // The instance's describe is the CRM's own, unchanged.
      const { connection } = principalOf(request);
      return { data: await runOperation(ctx.operations, connection, 'describe', { objectName: undefined }) };
    },
  );
  app.post(
    '/v1/describe/:object_name',
    {
      schema: {
        operationId: 'describeObject',
        'x-crm-operation': 'describe',
        summary: 'Describe one object',
        description:
          "The object's metadata in `data`. The object name is case-insensitive. Unknown object: 404 `unknown_object`. No request body.",
        tags: ['Describe'],
        params: ObjectNameParams,
        response: answers(
          { 200: dataAnswer(Type.Record(Type.String(), Type.Unknown()), 'The object describe.') },
          [400, 404, 422, 502, 503],
        ),
      },
    },
    async (request) => {
      ensureNoBody(request.body);
      const objectName = request.params.object_name;
      const data = await runOperation(ctx.operations, principalOf(request).connection, 'describe', {
        objectName,
      });
      // The account has no such object.
      if (data === null) throw unknownObject(objectName);
      return { data };
    },
  );
}

/** The address countries and their states. */
function countriesRoute(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/countries',
    {
      schema: {
        operationId: 'listCountries',
        'x-crm-operation': 'countries',
        summary: 'List the address countries and states',
        description:
          'The countries (ISO code, label, `active`, `visible`) the account\'s addresses take, each with its states. Salesforce: the org\'s State and Country/Territory Picklists as Account\'s `BillingCountryCode`/`BillingStateCode` describe gives them (states placed by their `validFor`), `source: "org_picklists"`; where the org has them off, the standard ISO 3166 list with English names, `source: "iso_default"`. No request body.',
        tags: ['Describe'],
        response: answers({ 200: CountriesResponse }, [400, 422, 502, 503]),
      },
    },
    async (request) => {
      ensureNoBody(request.body, 'The country list');
      const { connection } = principalOf(request);
      return { data: await runOperation(ctx.operations, connection, 'countries', {}, { all: true }) };
    },
  );
}

/** Adding a custom field to an object. */
function customFieldRoute(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/add_custom_field/:object_name',
    {
      schema: {
        operationId: 'addCustomField',
        'x-crm-operation': 'add_custom_field',
        summary: 'Add a custom field',
        description: KEYED_WRITE_NOTE,
        tags: ['Metadata'],
        params: ObjectNameParams,
        headers: KeyedWriteHeaders,
        body: CustomFieldBody,
        response: answers(
          {
            200: Type.Object(
              {
                data: Type.Record(Type.String(), Type.Unknown()),
                msg: Type.Optional(Type.String()),
                message: Type.Optional(Type.String()),
              },
              { additionalProperties: true, description: 'The creation result.' },
            ),
          },
          [400, 404, 409, 413, 415, 422, 502, 503],
        ),
      },
    },
    async (request, reply) =>
      directWrite(ctx, request, reply, async () => ({
        headers: {},
        body: await runOperation(ctx.operations, principalOf(request).connection, 'add_custom_field', {
          objectName: request.params.object_name,
          definition: request.body.data,
        }),
      })),
  );
}
