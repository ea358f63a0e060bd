import { Type } from 'typebox';
import { writeAssociations } from '../../operations/associations.ts';
import { principalOf } from '../plugins/auth.ts';
import { AssociateBody } from '../schemas/bodies.ts';
import { ObjectNameParams, RecordResult } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/dissociate/:object_name',
    {
      schema: { params: ObjectNameParams, body: AssociateBody },
      config: {
        doc: {
          operation: 'dissociate',
          operationId: 'dissociateRecords',
          summary: 'Remove associations between records',
          description:
            'Removes every association between each pair of records (`id` of `{object_name}`, `to_id` of type `to`); `label` is ignored. Removing an association that does not exist succeeds (HubSpot answers the same). One result per link, in order. HubSpot: associations v4 batch archive, 100 links per call, paced.',
          tags: ['Associations'],
          responses: {
            '200': {
              description: 'One result per link.',
              schema: Type.Object({ data: Type.Array(RecordResult) }),
            },
          },
          errors: [400, 404, 413, 415, 422, 502, 503],
        },
      },
    },
    async (request) => {
      const answer = await writeAssociations(
        ctx.operations,
        principalOf(request).connection,
        'dissociate',
        request.params.object_name,
        request.body.data.map((l) => ({ id: l.id, to: l.to, toId: l.to_id, label: l.label })),
      );
      return { data: answer.data };
    },
  );
}
