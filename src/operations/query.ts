import type { QueryPage } from '../providers/salesforce/facet.ts';
import type { Connection } from '../store/types.ts';
import { ensureOffered, notImplemented, translatingCrmErrors } from './checks.ts';
import type { OperationDeps } from './deps.ts';
import { openSession } from './session.ts';

/**
 * SOQL query (decisions §4): Salesforce's pages are followed up to 10 000 records; beyond that
 * `next_cursor` continues. Salesforce's query errors answer 400 with its message.
 */
export async function runQuery(
  deps: OperationDeps,
  connection: Connection,
  input: { soql: string } | { cursor: string },
): Promise<QueryPage> {
  const adapter = deps.registry[connection.provider];
  ensureOffered(adapter, 'query');
  const data = adapter.salesforceData;
  if (data === undefined) throw notImplemented('query', adapter.provider);
  return translatingCrmErrors(async () => {
    const session = openSession(deps, adapter, connection);
    return 'soql' in input ? data.query(session, input.soql) : data.queryMore(session, input.cursor);
  });
}
