import { Type } from 'typebox';
import { listCountries } from '../../operations/countries.ts';
import { principalOf } from '../plugins/auth.ts';
import type { ApiApp, RouteServices } from './types.ts';
import { ensureNoBody } from './v1.describe.ts';

const Flags = {
  active: Type.Boolean({ description: 'Usable in records.' }),
  visible: Type.Boolean({
    description:
      'Shown to users. From the describe only `active` is known, so `visible` equals `active` for `org_picklists`.',
  }),
};

const CountriesResponse = Type.Object({
  data: Type.Object({
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
});

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/countries',
    {
      config: {
        doc: {
          operation: 'countries',
          operationId: 'listCountries',
          summary: 'List the address countries and states',
          description:
            'The countries (ISO code, label, `active`, `visible`) the account\'s addresses take, each with its states. Salesforce: the org\'s State and Country/Territory Picklists as Account\'s `BillingCountryCode`/`BillingStateCode` describe gives them (states placed by their `validFor`), `source: "org_picklists"`; where the org has them off, the standard ISO 3166 list with English names, `source: "iso_default"`. No request body.',
          tags: ['Describe'],
          responses: { '200': { description: 'The country list.', schema: CountriesResponse } },
          errors: [400, 422, 502, 503],
        },
      },
    },
    async (request) => {
      ensureNoBody(request.body, 'The country list');
      return { data: await listCountries(ctx.operations, principalOf(request).connection) };
    },
  );
}
