import { Type } from 'typebox';
import { ApiError } from '../../errors/index.ts';
import { describeGlobal } from '../../operations/describe.ts';
import { principalOf } from '../plugins/auth.ts';
import type { ApiApp, RouteServices } from './types.ts';

/** Reads without input take no body; `{}` is tolerated, anything else is a mistake worth reporting. */
export function ensureNoBody(body: unknown, operation = 'Describe'): void {
  if (body === undefined || body === null) return;
  if (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0) return;
  throw new ApiError('invalid_body', `${operation} takes no request body. Send no body, or {}.`, {
    details: [{ path: '/', message: 'must be empty' }],
  });
}

const DescribeResponse = Type.Object({
  data: Type.Record(Type.String(), Type.Unknown(), {
    description:
      "Salesforce: its Describe Global result, unchanged (`encoding`, `maxBatchSize`, `sobjects`). HubSpot: `objects`, the standard object types and the account's custom objects (`name`, `objectTypeId`, `custom`).",
  }),
});

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/describe',
    {
      config: {
        doc: {
          operation: 'describe',
          operationId: 'describeInstance',
          summary: 'Describe the instance',
          description:
            'Lists every object of the connected account in `data`. {{crm.notes}} No request body.',
          tags: ['Describe'],
          responses: { '200': { description: 'The global describe.', schema: DescribeResponse } },
          errors: [400, 422, 502, 503],
        },
      },
    },
    async (request) => {
      ensureNoBody(request.body);
      return { data: await describeGlobal(ctx.operations, principalOf(request).connection) };
    },
  );
}
