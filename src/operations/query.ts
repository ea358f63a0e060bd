import type { Connection } from '../domain/connection.ts';
import type { QueryPage } from '../domain/operations.ts';
import { handlerFor } from './checks.ts';
import { type OperationDeps, runHandler } from './deps.ts';

/** A query in the CRM's own language, or the continuation of one (`next_cursor`). */
export async function runQuery(
  deps: OperationDeps,
  connection: Connection,
  input: { soql: string } | { cursor: string },
): Promise<QueryPage> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, 'query');
  return runHandler(deps, adapter, connection, handler, input);
}
