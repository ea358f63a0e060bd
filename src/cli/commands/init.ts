import { note } from '../io.ts';
import type { Leaf } from './subcommands.ts';

/** Opens the store itself: creating one where nothing configured it is what it is for. */
export const init: Leaf = {
  help: `./bin/crm-proxy.mjs init
    creates the store where the configuration points (and, in sandbox mode, the development
    encryption key), printing where; an existing store is left as it is`,
  async run() {
    const { locateStore } = await import('../location.ts');
    const location = locateStore();
    note(`Store: ${location.where}`);
    const { openCore } = await import('../core.ts');
    const core = await openCore(location.config, { info: note, warn: note });
    try {
      const connections = (await core.connections.list()).length;
      note(
        location.exists
          ? `The store already exists (${connections} connection(s)); nothing was changed.`
          : 'Created a new empty store. Add a connection: ./bin/crm-proxy.mjs connect-link create --provider salesforce|hubspot',
      );
    } finally {
      await core.close();
    }
    return 0;
  },
};
