import type { Connection } from '../domain/connection.ts';
import { unknownObject } from '../errors/index.ts';
import { ensureObjectName, handlerFor } from './checks.ts';
import { type OperationDeps, runHandler } from './deps.ts';

/** Describe the instance: the CRM's own describe, unchanged. */
export async function describeGlobal(deps: OperationDeps, connection: Connection): Promise<unknown> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, 'describe');
  return runHandler(deps, adapter, connection, handler, { objectName: undefined });
}

/** Describe one object, unchanged; 404 when the account has no such object. */
export async function describeObject(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
): Promise<unknown> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, 'describe');
  ensureObjectName(adapter, objectName);
  const result = await runHandler(deps, adapter, connection, handler, { objectName });
  if (result === null) throw unknownObject(objectName);
  return result;
}
