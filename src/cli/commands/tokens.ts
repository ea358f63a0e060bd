import { CommandError, cliIo, note, parseDuration, printJson, UsageError } from '../io.ts';
import { type Group, leaf, listing } from './subcommands.ts';

const create = leaf({
  help: `./bin/crm-proxy.mjs tokens create --connection ID [--name N] [--expires-in 30d] [--json]
    prints the token once on stdout (s, m, h, d, w, y units for --expires-in)`,
  options: {
    connection: { type: 'string' },
    name: { type: 'string' },
    'expires-in': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  async run(core, values) {
    if (!values.connection) throw new UsageError('--connection ID is required');
    const expiresAt =
      values['expires-in'] !== undefined
        ? new Date(Date.now() + parseDuration(values['expires-in'], '--expires-in'))
        : null;
    const result = await core.auth.createToken({
      connectionId: values.connection,
      name: values.name ?? null,
      expiresAt,
    });
    if (!result.ok) throw new CommandError(result.message);
    if (values.json) {
      printJson({ token: result.token, record: result.record });
      return 0;
    }
    // Only the token goes to stdout, so `TOKEN=$(crm-proxy tokens create …)` captures exactly it.
    cliIo().stdout.write(`${result.token}\n`);
    note(
      `Created token ${result.record.id} (${result.record.prefix}…) for ${result.record.connectionId}` +
        `${result.record.expiresAt ? `, expires ${result.record.expiresAt}` : ', no expiry'}. ` +
        'It is shown only this once: store it now.',
    );
    return 0;
  },
});

const list = listing({
  help: './bin/crm-proxy.mjs tokens list [--connection ID] [--json]',
  options: { connection: { type: 'string' } },
  load: (core, values) => core.auth.list(values.connection),
  empty: 'No tokens. Create one with: ./bin/crm-proxy.mjs tokens create --connection ID',
  headers: ['ID', 'PREFIX', 'CONNECTION', 'NAME', 'STATE', 'CREATED', 'LAST USED', 'EXPIRES'],
  row: (t) => [
    t.id,
    `${t.prefix}…`,
    t.connectionId,
    t.name ?? '',
    t.revokedAt ? 'revoked' : t.expiresAt && t.expiresAt <= new Date().toISOString() ? 'expired' : 'active',
    t.createdAt,
    t.lastUsedAt ?? 'never',
    t.expiresAt ?? 'never',
  ],
});

const revoke = leaf({
  help: './bin/crm-proxy.mjs tokens revoke ID|PREFIX      a token id (tok_…), its display prefix (crmp_eu_AbCd1234) or the token itself',
  operands: 1,
  async run(core, _values, [ref = '']) {
    const result = await core.auth.revoke(ref);
    if (result.ok) {
      note(`Revoked token ${result.record.id} (${result.record.prefix}…).`);
      return 0;
    }
    if (result.code === 'already_revoked') {
      // Re-running a revocation is not a failure: the token is revoked either way.
      note(result.message);
      return 0;
    }
    throw new CommandError(result.message);
  },
});

export const tokens: Group = { subcommands: { create, list, revoke } };
