// Operators in the console: one's own password and sessions for everyone; adding, disabling,
// enabling and removing operators, resetting their passwords and ending their sessions for those
// who manage the others. Every form posted here is recorded in the request log with who sent it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { type Actor, OperatorError } from '../../admin/operators.ts';
import { isoTime } from '../../lib/clock.ts';
import { type ApiApp, typed } from '../routes/types.ts';
import { sentence } from './errors.ts';
import { type ConsoleKit, SESSION_COOKIE } from './kit.ts';
import { accountPage, operatorPage, operatorsPage } from './operator-pages.ts';
import {
  AddOperatorForm,
  ChangePasswordForm,
  IdParams,
  OperatorSessionParams,
  ResetPasswordForm,
  SessionParams,
  TokenOnlyForm,
} from './schemas.ts';
import { pathOnly } from './session-gate.ts';

type Done = { error: string | null; done: string | null; status: number };
const ok = (done: string | null = null): Done => ({ error: null, done, status: 200 });
const refused = (error: string, status: number): Done => ({ error, done: null, status });

/** Runs an action; an OperatorError becomes the page's error with its status. */
async function attempt(action: () => Promise<string | null>): Promise<Done> {
  try {
    return ok(await action());
  } catch (err) {
    if (err instanceof OperatorError) return refused(sentence(err.message), err.status);
    throw err;
  }
}

/** Who did what: every form of these pages, refused ones too, goes to the request log. */
function recordActions(scope: FastifyInstance, kit: ConsoleKit): void {
  const { requestLog, clock } = kit.ctx;
  scope.addHook('onResponse', (request, reply, done) => {
    if (request.method !== 'POST') return done();
    requestLog.record({
      at: isoTime(clock.now() - Math.round(reply.elapsedTime)),
      method: request.method,
      path: (pathOnly(request.url).split('?')[0] ?? '').slice(0, 500),
      status: reply.statusCode,
      latencyMs: Math.round(reply.elapsedTime),
      crmCalls: 0,
      interface: 'console',
      requestId: request.id,
      tokenId: null,
      connectionId: null,
      errorCode: reply.statusCode >= 400 ? 'operator_action_refused' : null,
      actor: kit.signedIn(request).operator.id,
    });
    done();
  });
}

/** The pages a form answers with, showing its outcome: one's account, the operators, one operator. */
function views(kit: ConsoleKit) {
  const { operators } = kit.ctx;
  const actor = (request: FastifyRequest): Actor => ({ operator: kit.signedIn(request).operator });

  const account = async (request: FastifyRequest, reply: FastifyReply, r: Done) => {
    const me = kit.signedIn(request).operator;
    const sessions = await operators.listSessions(actor(request), me.id);
    const page = accountPage(kit.frame(request, reply, '/console/account'), sessions, r.error, r.done);
    return kit.send(reply, page, r.status);
  };

  const list = async (request: FastifyRequest, reply: FastifyReply, r: Done) => {
    const frame = kit.frame(request, reply, '/console/operators');
    if (!frame.operator?.canManage)
      return account(request, reply, refused('Only operators who manage others may see this page.', 403));
    return kit.send(reply, operatorsPage(frame, await operators.list(), r.error, r.done), r.status);
  };

  const one = async (request: FastifyRequest, reply: FastifyReply, id: string, r: Done) => {
    const frame = kit.frame(request, reply, '/console/operators');
    const target = await operators.find(id);
    if (target === null || !frame.operator?.canManage)
      return list(request, reply, refused(`No operator ${id} here.`, 404));
    const sessions = await operators.listSessions(actor(request), target.id);
    return kit.send(reply, operatorPage(frame, target, sessions, r.error, r.done), r.status);
  };

  const endSession = (request: FastifyRequest, sid: string) =>
    attempt(async () => {
      await operators.endSessionById(actor(request), sid);
      return 'Session ended.';
    });
  return { actor, account, list, one, endSession };
}

type Views = ReturnType<typeof views>;

export function operatorRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  recordActions(scope, kit);
  const pages = views(kit);
  accountRoutes(typed(scope), kit, pages);
  managementRoutes(typed(scope), kit, pages);
}

/** One's own password and sessions, for every operator. */
function accountRoutes(api: ApiApp, kit: ConsoleKit, { account, endSession }: Views): void {
  const { operators } = kit.ctx;
  api.get('/console/account', {}, async (request, reply) => {
    const changed = (request.query as Record<string, unknown>)['changed'] === '1';
    const done = 'Password changed. Every other session ended and the operator API keys were revoked.';
    return account(request, reply, ok(changed ? done : null));
  });

  api.post('/console/account/password', { schema: { body: ChangePasswordForm } }, async (request, reply) => {
    const me = kit.signedIn(request).operator;
    const r = await attempt(async () => {
      await operators.changeOwnPassword(me, request.body.current_password, request.body.new_password);
      return null;
    });
    if (r.error !== null) return account(request, reply, r);
    // Every session ended with the change; this browser gets a new one.
    await kit.startSession(request, reply, me);
    return reply.redirect('/console/account?changed=1', 303);
  });

  api.post(
    '/console/account/sessions/:sid/end',
    { schema: { params: SessionParams, body: TokenOnlyForm } },
    async (request, reply) => {
      // One's own sessions only for those who do not manage others (the service checks).
      const r = await endSession(request, request.params.sid);
      if (request.params.sid === kit.signedIn(request).session.idHash && r.error === null)
        return reply.redirect('/console/sign-in', 303);
      return account(request, reply, r);
    },
  );
}

/** Adding, disabling, enabling and removing operators, their passwords and sessions. */
function managementRoutes(api: ApiApp, kit: ConsoleKit, { actor, list, one, endSession }: Views): void {
  const { operators } = kit.ctx;
  api.get('/console/operators', {}, async (request, reply) => list(request, reply, ok()));

  api.post('/console/operators', { schema: { body: AddOperatorForm } }, async (request, reply) => {
    const { email, password, can_manage } = request.body;
    const r = await attempt(async () => {
      const added = await operators.add(actor(request), email, password, can_manage === 'yes');
      return `Added ${added.email}.`;
    });
    return list(request, reply, r.error === null ? { ...r, status: 201 } : r);
  });

  api.get('/console/operators/:id', { schema: { params: IdParams } }, async (request, reply) =>
    one(request, reply, request.params.id, ok()),
  );

  /** A form on an operator: its message, on the list or on the operator's page (`pageOf`). */
  const action = (
    name: string,
    run: (a: Actor, id: string, form: { new_password?: string }) => Promise<string>,
    pageOf: (done: boolean) => 'list' | 'one' = () => 'list',
    body: TSchema = TokenOnlyForm,
  ) =>
    api.post(
      `/console/operators/:id/${name}`,
      { schema: { params: IdParams, body } },
      async (request, reply) => {
        const r = await attempt(() => run(actor(request), request.params.id, request.body as object));
        // An operator who ended their own access is sent to sign in.
        if (r.error === null && (await operators.session(request.cookies[SESSION_COOKIE])) === null)
          return reply.redirect('/console/sign-in', 303);
        return pageOf(r.error === null) === 'one'
          ? one(request, reply, request.params.id, r)
          : list(request, reply, r);
      },
    );
  action(
    'disable',
    async (a, id) =>
      `Disabled ${(await operators.disable(a, id)).email}: their sessions ended and their keys were revoked.`,
  );
  action('enable', async (a, id) => `Enabled ${(await operators.enable(a, id)).email}.`);
  action(
    'remove',
    async (a, id) => `Removed ${(await operators.remove(a, id)).email} with their sessions and keys.`,
  );
  action(
    'sessions/end',
    async (a, id) => `Ended ${await operators.endSessions(a, id)} session(s).`,
    (done) => (done ? 'one' : 'list'),
  );
  action(
    'password',
    async (a, id, form) =>
      `Password of ${(await operators.resetPassword(a, id, form.new_password ?? '')).email} reset: their sessions ended and their keys were revoked.`,
    () => 'one',
    ResetPasswordForm,
  );

  api.post(
    '/console/operators/:id/sessions/:sid/end',
    { schema: { params: OperatorSessionParams, body: TokenOnlyForm } },
    async (request, reply) => {
      const r = await endSession(request, request.params.sid);
      return one(request, reply, request.params.id, r);
    },
  );
}
