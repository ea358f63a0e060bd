import type { Connection } from '../domain/connection.ts';
import { unknownObject } from '../errors/index.ts';
import type { CrmAdapter, OperationAnswers } from '../providers/adapter.ts';
import { ensureObjectName } from './checks.ts';
import { type OperationDeps, runOperation } from './deps.ts';

/** Describe one object, unchanged; 404 when the account has no such object. */
export async function describeObject(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
): Promise<unknown> {
  const check = (adapter: CrmAdapter) => ensureObjectName(adapter, objectName);
  const result = await runOperation(deps, connection, 'describe', { objectName }, { check });
  if (result === null) throw unknownObject(objectName);
  return result;
}

/** Add a custom field through the connection's CRM; the answer keeps the CRM's own shape. */
export function addCustomField(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  definition: Record<string, unknown>,
): Promise<OperationAnswers['add_custom_field']> {
  const check = (adapter: CrmAdapter) => ensureObjectName(adapter, objectName);
  return runOperation(deps, connection, 'add_custom_field', { objectName, definition }, { check });
}
