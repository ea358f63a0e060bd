import type { Connection } from '../domain/connection.ts';
import type { QueryPage } from '../domain/operations.ts';
import type { SearchRequest } from '../providers/adapter.ts';
import { ensureObjectName, handlerFor } from './checks.ts';
import { type OperationDeps, runHandler } from './deps.ts';

/** A structured search of one object type, or the continuation of one (`next_cursor`). */
export async function runSearch(
  deps: OperationDeps,
  connection: Connection,
  input: { objectName: string; request: SearchRequest } | { cursor: string },
): Promise<QueryPage> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, 'search');
  if ('objectName' in input) ensureObjectName(adapter, input.objectName);
  return runHandler(deps, adapter, connection, handler, input);
}
