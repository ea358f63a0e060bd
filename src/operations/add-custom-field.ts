import type { Connection } from '../domain/connection.ts';
import type { OperationAnswers } from '../providers/adapter.ts';
import { ensureObjectName, handlerFor } from './checks.ts';
import { type OperationDeps, runHandler } from './deps.ts';

/** Add a custom field through the connection's CRM; the answer keeps the CRM's own shape. */
export async function addCustomField(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  definition: Record<string, unknown>,
): Promise<OperationAnswers['add_custom_field']> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, 'add_custom_field');
  ensureObjectName(adapter, objectName);
  return runHandler(deps, adapter, connection, handler, { objectName, definition });
}
