import type { Connection } from '../domain/connection.ts';
import type { AssociationLink, RecordAssociations, WriteAnswer } from '../domain/operations.ts';
import { ensureObjectName, ensureWithin, handlerFor } from './checks.ts';
import { type OperationDeps, runHandler } from './deps.ts';

/** The records of type `to` associated with each of `ids`: one entry per id, in order. */
export async function readAssociations(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  ids: string[],
  to: string,
): Promise<{ data: RecordAssociations[] }> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, 'associations');
  ensureObjectName(adapter, objectName);
  ensureObjectName(adapter, to);
  return runHandler(deps, adapter, connection, handler, { objectName, ids, to });
}

/** Creates (`associate`) or removes (`dissociate`) associations: one result per link, in order. */
export async function writeAssociations(
  deps: OperationDeps,
  connection: Connection,
  operation: 'associate' | 'dissociate',
  objectName: string,
  links: AssociationLink[],
): Promise<WriteAnswer> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, operation);
  ensureObjectName(adapter, objectName);
  for (const to of new Set(links.map((l) => l.to))) ensureObjectName(adapter, to);
  ensureWithin('too_many_records', links.length, adapter.profile.limits.writeRecords, operation);
  return runHandler(deps, adapter, connection, handler, { objectName, links });
}
