import { Type } from 'typebox';
import { runOperation } from '../../operations/deps.ts';
import { writeAssociations } from '../../operations/records.ts';
import { principalOf } from '../plugins/auth.ts';
import { answers, dataAnswer, WriteResults } from '../schemas/answers.ts';
import { AssociateBody, AssociationsBody } from '../schemas/bodies.ts';
import { ObjectNameParams } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';

// Associations: read, create (associate) and remove (dissociate); the two writes take the same links.

const Kind = Type.Object({
  category: Type.String(),
  typeId: Type.Integer(),
  label: Type.Union([Type.String(), Type.Null()]),
});

const ERRORS = [400, 404, 413, 415, 422, 502, 503];

const WRITES = [
  {
    operation: 'associate',
    operationId: 'associateRecords',
    summary: 'Associate records',
    description:
      'Creates associations from records of `{object_name}`: each link names the record (`id`), the target type (`to`) and record (`to_id`), and optionally the association `label` (absent: HubSpot’s default, unlabelled type; an unknown label fails its link with the closest one). One result per link, in order; each succeeds or fails on its own. HubSpot: associations v4 batch create, 100 links per call, paced.',
  },
  {
    operation: 'dissociate',
    operationId: 'dissociateRecords',
    summary: 'Remove associations between records',
    description:
      'Removes every association between each pair of records (`id` of `{object_name}`, `to_id` of type `to`); `label` is ignored. Removing an association that does not exist succeeds (HubSpot answers the same). One result per link, in order. HubSpot: associations v4 batch archive, 100 links per call, paced.',
  },
] as const;

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/associations/:object_name',
    {
      schema: {
        operationId: 'readAssociations',
        'x-crm-operation': 'associations',
        summary: 'Read the associations of records',
        description:
          'For each id (in order) the records of object type `to` associated with it, each with every association type between the two (`category`, `typeId`, `label`; `null` for HubSpot’s unlabelled default). An id without associations, or that is not a record, has `to: []`. HubSpot: associations v4 batch read, 1 000 ids per call.',
        tags: ['Associations'],
        params: ObjectNameParams,
        body: AssociationsBody,
        response: answers(
          {
            200: dataAnswer(
              Type.Array(
                Type.Object({
                  id: Type.String(),
                  to: Type.Array(Type.Object({ id: Type.String(), types: Type.Array(Kind) })),
                }),
              ),
              'One entry per id.',
            ),
          },
          ERRORS,
        ),
      },
    },
    // The records of type `to` associated with each id: one entry per id, in order.
    async (request) =>
      runOperation(ctx.operations, principalOf(request).connection, 'associations', {
        objectName: request.params.object_name,
        ids: request.body.data.ids,
        to: request.body.data.to,
      }),
  );
  for (const write of WRITES) {
    app.post(
      `/v1/object/${write.operation}/:object_name`,
      {
        schema: {
          operationId: write.operationId,
          'x-crm-operation': write.operation,
          summary: write.summary,
          description: write.description,
          tags: ['Associations'],
          params: ObjectNameParams,
          body: AssociateBody,
          response: answers({ 200: WriteResults('One result per link.') }, ERRORS),
        },
      },
      async (request) => {
        const answer = await writeAssociations(
          ctx.operations,
          principalOf(request).connection,
          write.operation,
          request.params.object_name,
          request.body.data.map((l) => ({ id: l.id, to: l.to, toId: l.to_id, label: l.label })),
        );
        return { data: answer.data };
      },
    );
  }
}
