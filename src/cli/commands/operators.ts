import { userInfo } from 'node:os';
import { type Actor, actorName, OperatorError } from '../../admin/operators.ts';
import { randomBase62 } from '../../crypto/random.ts';
import type { Core } from '../core.ts';
import { CommandError, cliIo, note, printJson, printListing, readLines, UsageError } from '../io.ts';
import { type Group, leaf, listing } from './subcommands.ts';

/** Who runs the CLI, as the request log names them. */
function cliActor(): Actor {
  try {
    return { cli: userInfo().username };
  } catch {
    // No user entry (a container's arbitrary uid).
    return { cli: 'unknown' };
  }
}

/** Runs an operator action, recorded in the request log done or refused; an OperatorError exits 1. */
async function act<T>(core: Core, what: string, run: (actor: Actor) => Promise<T>): Promise<T> {
  const actor = cliActor();
  const record = (status: number) =>
    core.requestLog.record({
      at: new Date().toISOString(),
      method: 'CLI',
      path: `operators ${what}`.slice(0, 500),
      status,
      latencyMs: 0,
      crmCalls: 0,
      interface: 'cli',
      requestId: `cli_${randomBase62(20)}`,
      tokenId: null,
      connectionId: null,
      errorCode: status >= 400 ? 'operator_action_refused' : null,
      actor: actorName(actor),
    });
  try {
    const result = await run(actor);
    record(200);
    return result;
  } catch (err) {
    if (!(err instanceof OperatorError)) throw err;
    record(err.status);
    throw new CommandError(err.message);
  }
}

const lifecycle = (sub: 'disable' | 'enable' | 'remove') =>
  leaf({
    help: './bin/crm-proxy.mjs operators disable|enable|remove EMAIL|ID   disable, remove: their sessions end and their keys are revoked at once; the last operator who manages the others stays',
    operands: 1,
    async run(core, _values, [target = '']) {
      const op = await act(core, `${sub} ${target}`, (actor) => core.operators[sub](actor, target));
      const done = { disable: 'Disabled', enable: 'Enabled', remove: 'Removed' }[sub];
      note(
        `${done} operator ${op.email} (${op.id}).${sub === 'enable' ? '' : ' Their sessions ended and their keys were revoked.'}`,
      );
      return 0;
    },
  });

const password = leaf({
  help: './bin/crm-proxy.mjs operators password EMAIL|ID [--current]   sets a new password (read from stdin); --current: the current one first, then the new one',
  options: { current: { type: 'boolean', default: false } },
  operands: 1,
  async run(core, values, [target = '']) {
    if (values.current) {
      const [current = '', next = ''] = await readLines(['Current password', 'New password']);
      await act(core, `password ${target} --current`, async () => {
        const op = await core.operators.find(target);
        if (op === null) throw new OperatorError('operator', `no operator ${target}`, 404);
        await core.operators.changeOwnPassword(op, current, next);
      });
    } else {
      const [next = ''] = await readLines(['New password']);
      await act(core, `password ${target}`, (actor) => core.operators.resetPassword(actor, target, next));
    }
    note(`Password of ${target} changed. Its sessions ended and its operator keys were revoked.`);
    return 0;
  },
});

const sessions = leaf({
  help: `./bin/crm-proxy.mjs operators sessions EMAIL|ID [--json]   the operator's console sessions
./bin/crm-proxy.mjs operators sessions end EMAIL|ID|SESSION   ends every session of an operator, or one session`,
  options: { json: { type: 'boolean', default: false } },
  operands: 'any',
  async run(core, values, [first, second, extra]) {
    if (first === 'end') {
      if (!second || extra)
        throw new UsageError('usage: ./bin/crm-proxy.mjs operators sessions end EMAIL|ID|SESSION');
      if (/^[0-9a-f]{64}$/.test(second)) {
        await act(core, `sessions end ${second}`, (actor) => core.operators.endSessionById(actor, second));
        note(`Ended session ${second.slice(0, 12)}….`);
      } else {
        const n = await act(core, `sessions end ${second}`, (actor) =>
          core.operators.endSessions(actor, second),
        );
        note(`Ended ${n} session(s) of ${second}.`);
      }
      return 0;
    }
    if (!first || second)
      throw new UsageError('usage: ./bin/crm-proxy.mjs operators sessions EMAIL|ID [--json]');
    const op = await core.operators.find(first);
    if (op === null) throw new CommandError(`No operator ${first}.`);
    const list = await core.operators.listSessions(cliActor(), op.id);
    printListing(
      list.map(({ csrfToken: _c, ...rest }) => rest),
      values.json,
      `No sessions of ${op.email}.`,
      ['SESSION', 'SIGNED IN', 'LAST SEEN', 'ENDS', 'ADDRESS', 'BROWSER'],
      (x) => [
        x.idHash,
        x.createdAt,
        x.lastSeenAt,
        x.expiresAt,
        x.address ?? '',
        (x.userAgent ?? '').slice(0, 40),
      ],
    );
    return 0;
  },
});

const create = leaf({
  help: './bin/crm-proxy.mjs operators create --email EMAIL [--manager]   the password is read from stdin (or asked for on a terminal); --manager: may manage the other operators (the first one always does)',
  options: { email: { type: 'string' }, manager: { type: 'boolean', default: false } },
  async run(core, values) {
    const email = values.email;
    if (!email) throw new UsageError('--email EMAIL is required');
    const [pw = ''] = await readLines(['Password']);
    const operator = await act(core, `create ${email}`, (actor) =>
      core.operators.add(actor, email, pw, values.manager),
    );
    note(
      `Created operator ${operator.email} (${operator.id})${operator.canManage ? ', who manages the other operators' : ''}. Sign in at ${core.address.baseUrl}/console/sign-in`,
    );
    return 0;
  },
});

const list = listing({
  help: './bin/crm-proxy.mjs operators list [--json]',
  load: (core) => core.operators.list(),
  empty: 'No operators. Create one with: ./bin/crm-proxy.mjs operators create --email you@example.com',
  headers: ['ID', 'EMAIL', 'STATE', 'MANAGES', 'CREATED', 'LAST SIGN-IN'],
  row: (o) => [
    o.id,
    o.email,
    o.disabledAt === null ? 'enabled' : `disabled ${o.disabledAt}`,
    o.canManage ? 'yes' : 'no',
    o.createdAt,
    o.lastSignInAt ?? 'never',
  ],
});

const keyCreate = leaf({
  help: './bin/crm-proxy.mjs operators key create --email EMAIL [--label L] [--json]   an operator API key for /v1/admin, printed once',
  options: {
    email: { type: 'string' },
    label: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  async run(core, values) {
    if (!values.email) throw new UsageError('--email EMAIL is required (the operator the key acts for)');
    const operator = await core.operators.find(values.email);
    if (!operator)
      throw new CommandError(
        `No operator ${values.email}. Create one with: ./bin/crm-proxy.mjs operators create --email …`,
      );
    // A refusal (an OperatorError) is reported as its message, with exit code 1.
    const { key, record } = await core.operators.createKey(operator, values.label ?? null);
    if (values.json) {
      printJson({ key, record });
      return 0;
    }
    cliIo().stdout.write(`${key}\n`);
    note(
      `Created operator key ${record.id} (${record.prefix}…) for ${operator.email}. It is shown only this once.`,
    );
    return 0;
  },
});

const key: Group = {
  subcommands: {
    create: keyCreate,
    list: listing({
      help: './bin/crm-proxy.mjs operators key list [--json]',
      load: (core) => core.operators.listKeys(),
      empty: 'No operator keys.',
      headers: ['ID', 'PREFIX', 'OPERATOR', 'LABEL', 'CREATED', 'LAST USED', 'REVOKED'],
      row: (k) => [
        k.id,
        `${k.prefix}…`,
        k.operatorId,
        k.label ?? '',
        k.createdAt,
        k.lastUsedAt ?? 'never',
        k.revokedAt ?? '',
      ],
    }),
    revoke: leaf({
      help: './bin/crm-proxy.mjs operators key revoke ID',
      operands: 1,
      async run(core, _values, [id = '']) {
        if (!(await core.operators.revokeKey(id))) throw new CommandError(`No active operator key ${id}.`);
        note(`Revoked operator key ${id}.`);
        return 0;
      },
    }),
  },
};

export const operators: Group = {
  subcommands: {
    create,
    list,
    disable: lifecycle('disable'),
    enable: lifecycle('enable'),
    remove: lifecycle('remove'),
    password,
    sessions,
    key,
  },
};
