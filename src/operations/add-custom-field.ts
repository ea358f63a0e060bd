import type { Connection } from '../store/types.ts';
import { ensureObjectName, ensureOffered, notImplemented, translatingCrmErrors } from './checks.ts';
import type { OperationDeps } from './deps.ts';
import { openSession } from './session.ts';

export type AddCustomFieldAnswer =
  | { data: Record<string, unknown>; msg: string }
  | { data: Record<string, unknown>; message: string };

/**
 * Add a custom field (spec 2.3 / 2.6) through the connection's CRM; the answer keeps each CRM's
 * shape from the spec: Salesforce `{data, msg}`, HubSpot `{data, message}`.
 */
export async function addCustomField(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  definition: Record<string, unknown>,
): Promise<AddCustomFieldAnswer> {
  const adapter = deps.registry[connection.provider];
  ensureOffered(adapter, 'add_custom_field');
  ensureObjectName(adapter, objectName);
  const fields = adapter.fields;
  if (fields === undefined) throw notImplemented('add_custom_field', adapter.provider);
  return translatingCrmErrors(async () => {
    const session = openSession(deps, adapter, connection);
    const { data, message } = await fields.addCustomField(session, objectName, definition);
    return adapter.provider === 'salesforce' ? { data, msg: message } : { data, message };
  });
}
