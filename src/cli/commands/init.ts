import { note } from '../io.ts';
import { leaf } from './subcommands.ts';

export const init = leaf({
  help: `./bin/crm-proxy.mjs init
    creates the store where the configuration points (and, in sandbox mode, the development
    encryption key), printing where; an existing store is left as it is`,
  creates: true,
  async run(core) {
    const connections = (await core.connections.list()).length;
    note(
      core.location.exists
        ? `The store already exists (${connections} connection(s)); nothing was changed.`
        : 'Created a new empty store. Add a connection: ./bin/crm-proxy.mjs connect-link create --provider salesforce|hubspot',
    );
    return 0;
  },
});
