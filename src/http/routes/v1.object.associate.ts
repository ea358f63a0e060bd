import { Type } from 'typebox';
import { writeAssociations } from '../../operations/associations.ts';
import { principalOf } from '../plugins/auth.ts';
import { AssociateBody } from '../schemas/bodies.ts';
import { ObjectNameParams, RecordResult } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/associate/:object_name',
    {
      schema: { params: ObjectNameParams, body: AssociateBody },
      config: {
        doc: {
          operation: 'associate',
          operationId: 'associateRecords',
          summary: 'Associate records',
          description:
            'Creates associations from records of `{object_name}`: each link names the record (`id`), the target type (`to`) and record (`to_id`), and optionally the association `label` (absent: HubSpot’s default, unlabelled type; an unknown label fails its link with the closest one). One result per link, in order; each succeeds or fails on its own. HubSpot: associations v4 batch create, 100 links per call, paced.',
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
        'associate',
        request.params.object_name,
        request.body.data.map((l) => ({ id: l.id, to: l.to, toId: l.to_id, label: l.label })),
      );
      return { data: answer.data };
    },
  );
}
