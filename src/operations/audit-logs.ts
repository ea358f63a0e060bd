import type { Connection } from '../domain/connection.ts';
import type { AuditLogPage } from '../domain/operations.ts';
import type { AuditLogFilter } from '../providers/adapter.ts';
import { handlerFor } from './checks.ts';
import { type OperationDeps, runHandler } from './deps.ts';

/** The account's audit log of user actions, or the continuation of a read (`next_cursor`). */
export async function readAuditLogs(
  deps: OperationDeps,
  connection: Connection,
  input: { filter: AuditLogFilter } | { cursor: string },
): Promise<AuditLogPage> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, 'audit_logs');
  return runHandler(deps, adapter, connection, handler, input);
}
