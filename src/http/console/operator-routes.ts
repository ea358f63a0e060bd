// Operators in the console: one's own password and sessions for everyone; managing the others for
// those who may. Every form posted here is recorded in the request log with who sent it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { type Actor, OperatorError } from '../../admin/operators.ts';
import { isoTime } from '../../lib/clock.ts';
import { typed } from '../routes/types.ts';
import { sentence } from './errors.ts';
import { type ConsoleKit, SESSION_COOKIE } from './kit.ts';
import { accountPage, type Outcome, operatorPage, operatorsPage } from './operator-pages.ts';
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

/** One's account, the operators, or one operator (the path's `:id`). */
type Page = 'account' | 'list' | 'one';

/** The page a refused form is shown on again, by route; any other: the operators. */
const REFUSED_ON: Record<string, Page> = {
  '/console/account/password': 'account',
  '/console/account/sessions/:sid/end': 'account',
  '/console/operators/:id/password': 'one',
  '/console/operators/:id/sessions/:sid/end': 'one',
};

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

/** Shows a page again with an outcome: one's account, the operators, or one operator. */
type Show = (
  request: FastifyRequest,
  reply: FastifyReply,
  page: Page,
  r?: Outcome & { status?: number },
) => Promise<FastifyReply>;

/** Who sends a form: the signed-in operator. */
type ActorOf = (request: FastifyRequest) => Actor;

/** The `show` the operator routes answer with: the page of `page` for the signed-in operator. */
function pageShower(kit: ConsoleKit, actor: ActorOf): Show {
  const { operators } = kit.ctx;
  const show: Show = async (request, reply, page, r = {}) => {
    const me = kit.signedIn(request).operator;
    const frame = kit.frame(request, reply, page === 'account' ? '/console/account' : '/console/operators');
    const status = r.status ?? 200;
    if (page === 'account') {
      const sessions = await operators.listSessions(actor(request), me.id);
      return kit.send(reply, accountPage(frame, sessions, r), status);
    }
    if (!me.canManage) {
      const refused = { error: 'Only operators who manage others may see this page.', status: 403 };
      return show(request, reply, 'account', refused);
    }
    if (page === 'list') return kit.send(reply, operatorsPage(frame, await operators.list(), r), status);
    const { id } = request.params as { id: string };
    const target = await operators.find(id);
    if (target === null)
      return show(request, reply, 'list', { error: `No operator ${id} here.`, status: 404 });
    const sessions = await operators.listSessions(actor(request), target.id);
    return kit.send(reply, operatorPage(frame, target, sessions, r), status);
  };
  return show;
}

export function operatorRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  recordActions(scope, kit);
  const actor: ActorOf = (request) => ({ operator: kit.signedIn(request).operator });
  const show = pageShower(kit, actor);
  // A refused action shows its page again with the refusal; anything else is the console's error page.
  scope.setErrorHandler((error, request, reply) => {
    if (!(error instanceof OperatorError)) throw error;
    const page = REFUSED_ON[request.routeOptions.url ?? ''] ?? 'list';
    return show(request, reply, page, { error: sentence(error.message), status: error.status });
  });

  accountRoutes(scope, kit, show, actor);
  othersRoutes(scope, kit, show, actor);
}

/** One's own password and sessions, for every operator. */
function accountRoutes(scope: FastifyInstance, kit: ConsoleKit, show: Show, actor: ActorOf): void {
  const { operators } = kit.ctx;
  const api = typed(scope);

  api.get('/console/account', {}, async (request, reply) => {
    const changed = (request.query as Record<string, unknown>)['changed'] === '1';
    const done = 'Password changed. Every other session ended and the operator API keys were revoked.';
    return show(request, reply, 'account', { done: changed ? done : null });
  });

  api.post('/console/account/password', { schema: { body: ChangePasswordForm } }, async (request, reply) => {
    const me = kit.signedIn(request).operator;
    await operators.changeOwnPassword(me, request.body.current_password, request.body.new_password);
    // Every session ended with the change; this browser gets a new one.
    await kit.startSession(request, reply, me);
    return reply.redirect('/console/account?changed=1', 303);
  });

  api.post(
    '/console/account/sessions/:sid/end',
    { schema: { params: SessionParams, body: TokenOnlyForm } },
    async (request, reply) => {
      // One's own sessions only for those who do not manage others (the service checks).
      await operators.endSessionById(actor(request), request.params.sid);
      if (request.params.sid === kit.signedIn(request).session.idHash)
        return reply.redirect('/console/sign-in', 303);
      return show(request, reply, 'account', { done: 'Session ended.' });
    },
  );
}

/** Managing the others: add, disable, enable, remove, their passwords and sessions. */
function othersRoutes(scope: FastifyInstance, kit: ConsoleKit, show: Show, actor: ActorOf): void {
  const { operators } = kit.ctx;
  const api = typed(scope);

  api.get('/console/operators', {}, async (request, reply) => show(request, reply, 'list'));

  api.post('/console/operators', { schema: { body: AddOperatorForm } }, async (request, reply) => {
    const { email, password, can_manage } = request.body;
    const added = await operators.add(actor(request), email, password, can_manage === 'yes');
    return show(request, reply, 'list', { done: `Added ${added.email}.`, status: 201 });
  });

  api.get('/console/operators/:id', { schema: { params: IdParams } }, async (request, reply) =>
    show(request, reply, 'one'),
  );

  /** A form on an operator: its message, on the list or on the operator's page. */
  const action = (
    name: string,
    run: (a: Actor, id: string, form: { new_password?: string }) => Promise<string>,
    page: Page = 'list',
    body: TSchema = TokenOnlyForm,
  ) =>
    api.post(
      `/console/operators/:id/${name}`,
      { schema: { params: IdParams, body } },
      async (request, reply) => {
        const done = await run(actor(request), request.params.id, request.body as object);
        // An operator who ended their own access is sent to sign in.
        if ((await operators.session(request.cookies[SESSION_COOKIE])) === null)
          return reply.redirect('/console/sign-in', 303);
        return show(request, reply, page, { done });
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
  action('sessions/end', async (a, id) => `Ended ${await operators.endSessions(a, id)} session(s).`, 'one');
  action(
    'password',
    async (a, id, form) =>
      `Password of ${(await operators.resetPassword(a, id, form.new_password ?? '')).email} reset: their sessions ended and their keys were revoked.`,
    'one',
    ResetPasswordForm,
  );

  api.post(
    '/console/operators/:id/sessions/:sid/end',
    { schema: { params: OperatorSessionParams, body: TokenOnlyForm } },
    async (request, reply) => {
      await operators.endSessionById(actor(request), request.params.sid);
      return show(request, reply, 'one', { done: 'Session ended.' });
    },
  );
}
