import { type TSchema, Type } from 'typebox';
import { answers, noBody } from '../../schemas/answers.ts';

/** The answer `{ data: … }` of an admin route. */
export const data = <T extends TSchema>(schema: T) => Type.Object({ data: schema });

/**
 * The schema facts of an admin route: its OpenAPI operation under the Admin tag, operator-key
 * authentication, and its answers by status (a success without a schema has no JSON body).
 */
export const doc = (
  operationId: string,
  summary: string,
  description: string,
  success: Record<string, { description: string; schema?: TSchema }>,
  errors: number[] = [],
) => ({
  operationId,
  summary,
  description,
  tags: ['Admin'],
  security: [{ operatorKey: [] }],
  response: answers(
    Object.fromEntries(
      Object.entries(success).map(([status, r]) => [
        status,
        r.schema === undefined ? noBody(r.description) : { ...r.schema, description: r.description },
      ]),
    ),
    errors,
  ),
});
