import { Type } from 'typebox';

const TAGS = ['Admin'];

/** The answer `{ data: … }` of an admin route. */
export const data = <T extends Parameters<typeof Type.Object>[0][string]>(schema: T) =>
  Type.Object({ data: schema });

/** The OpenAPI facts of an admin route: operator-key authentication, the Admin tag. */
export const doc = (
  operationId: string,
  summary: string,
  description: string,
  responses: Record<string, { description: string; schema?: ReturnType<typeof Type.Object> }>,
  errors: number[] = [],
) => ({
  doc: { operationId, summary, description, tags: TAGS, responses, errors, operatorKey: true },
});
