import { note, printJson } from '../io.ts';
import { leaf } from './subcommands.ts';

export const rotateKey = leaf({
  help: `./bin/crm-proxy.mjs rotate-key [--json]
    re-encrypts every connection's credentials under CRM_PROXY_ENCRYPTION_KEY_ID; keep the old key in
    CRM_PROXY_ENCRYPTION_KEYS until it reports nothing left to do. Safe to re-run.`,
  options: { json: { type: 'boolean', default: false } },
  async run(core, { json }) {
    const report = await core.connections.resealAll();
    if (json) printJson({ activeKeyId: core.keyring.activeKeyId, ...report });
    else {
      note(
        `Active key "${core.keyring.activeKeyId}": re-encrypted ${report.resealed}, already current ${report.current}, failed ${report.failed.length}.`,
      );
      for (const f of report.failed) note(`  ${f.id}: ${f.message}`);
    }
    return report.failed.length === 0 ? 0 : 1;
  },
});
