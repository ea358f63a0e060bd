import { Type } from 'typebox';
import { readAssociations } from '../../operations/associations.ts';
import { principalOf } from '../plugins/auth.ts';
import { AssociationsBody } from '../schemas/bodies.ts';
import { ObjectNameParams } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';

const Kind = Type.Object({
  category: Type.String(),
  typeId: Type.Integer(),
  label: Type.Union([Type.String(), Type.Null()]),
});

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/associations/:object_name',
    {
      schema: { params: ObjectNameParams, body: AssociationsBody },
      config: {
        doc: {
          operation: 'associations',
          operationId: 'readAssociations',
          summary: 'Read the associations of records',
          description:
            'For each id (in order) the records of object type `to` associated with it, each with every association type between the two (`category`, `typeId`, `label`; `null` for HubSpot’s unlabelled default). An id without associations, or that is not a record, has `to: []`. HubSpot: associations v4 batch read, 1 000 ids per call.',
          tags: ['Associations'],
          responses: {
            '200': {
              description: 'One entry per id.',
              schema: Type.Object({
                data: Type.Array(
                  Type.Object({
                    id: Type.String(),
                    to: Type.Array(Type.Object({ id: Type.String(), types: Type.Array(Kind) })),
                  }),
                ),
              }),
            },
          },
          errors: [400, 404, 413, 415, 422, 502, 503],
        },
      },
    },
    async (request) =>
      readAssociations(
        ctx.operations,
        principalOf(request).connection,
        request.params.object_name,
        request.body.data.ids,
        request.body.data.to,
      ),
  );
}
