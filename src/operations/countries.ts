import type { Connection } from '../domain/connection.ts';
import type { CountryList } from '../domain/operations.ts';
import { handlerFor } from './checks.ts';
import { type OperationDeps, runHandler } from './deps.ts';

/** The countries and states an account's addresses take; 422 where the CRM has no such list. */
export async function listCountries(deps: OperationDeps, connection: Connection): Promise<CountryList> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, 'countries', deps.registry.list());
  return runHandler(deps, adapter, connection, handler, {});
}
