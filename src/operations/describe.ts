import { ApiError } from '../errors/index.ts';
import type { Connection } from '../store/types.ts';
import { ensureObjectName, ensureOffered, notImplemented, translatingCrmErrors } from './checks.ts';
import type { OperationDeps } from './deps.ts';
import { openSession } from './session.ts';

/** Describe the instance: Salesforce's Describe Global, unchanged (decisions §4). */
export async function describeGlobal(deps: OperationDeps, connection: Connection): Promise<unknown> {
  const adapter = deps.registry[connection.provider];
  ensureOffered(adapter, 'describe');
  const describe = adapter.describe;
  if (describe === undefined) throw notImplemented('describe', adapter.provider);
  return translatingCrmErrors(() => describe.describeGlobal(openSession(deps, adapter, connection)));
}

/** Describe one object: Salesforce's sObject Describe, unchanged; 404 when the org has no such object. */
export async function describeObject(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
): Promise<unknown> {
  const adapter = deps.registry[connection.provider];
  ensureOffered(adapter, 'describe');
  ensureObjectName(adapter, objectName);
  const describe = adapter.describe;
  if (describe === undefined) throw notImplemented('describe', adapter.provider);
  const result = await translatingCrmErrors(() =>
    describe.describeObject(openSession(deps, adapter, connection), objectName),
  );
  if (result === null) throw unknownObject(objectName);
  return result;
}

export function unknownObject(objectName: string): ApiError {
  return new ApiError(
    'unknown_object',
    `The connected org has no object named "${objectName}". POST /v1/describe lists the objects it has.`,
    { details: [{ path: '/object_name', value: objectName }] },
  );
}
