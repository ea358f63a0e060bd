// Signing in, the first run's setup, and signing out. Before a session the CSRF secret is the
// server-signed pre-session cookie (one a client made up is replaced, never used).
import type { FastifyInstance } from 'fastify';
import { SIGN_IN_LIMITS, SignInGuard } from '../../admin/sign-in-guard.ts';
import { privateCookie, registerCsrf } from '../plugins/csrf.ts';
import { typed } from '../routes/types.ts';
import { consoleErrorHandler, TOKEN_REFUSED } from './errors.ts';
import { setupRoutes } from './first-run.ts';
import { type Html, html } from './html.ts';
import { type ConsoleKit, DEVICE_COOKIE, type FormPage, PRE_SESSION_COOKIE, SESSION_COOKIE } from './kit.ts';
import { CLI, csrfField, layout, notices } from './pages.ts';
import { SignInForm, TokenOnlyForm } from './schemas.ts';

function signInPage(csrf: string, error: string | null, email: string): Html {
  return layout(
    { operator: null, csrf },
    'Sign in',
    html`<div class="signin card"><h1>Operator sign-in</h1>
${notices(error)}
<form method="post" action="/console/sign-in">${csrfField(csrf)}
<label>Email <input type="email" name="email" autocomplete="username" required value="${email}"></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form>
<p class="muted">No operator yet? <a href="/console/setup">Create the first one</a> with the setup code from the start-up output, or on the server: <code>${CLI} operators create --email you@example.com</code>.</p></div>`,
  );
}

/** Sign-in and setup, in one scope with the pre-session CSRF secret. */
export async function preSessionRoutes(scope: FastifyInstance, kit: ConsoleKit): Promise<void> {
  await registerCsrf(scope, { secretCookie: PRE_SESSION_COOKIE, path: '/console', signed: true });
  const signIn = signInRoutes(scope, kit);
  const setup = setupRoutes(scope, kit);
  // A refused form token shows its own form again, empty.
  scope.setErrorHandler(
    consoleErrorHandler(kit, (request, reply) => {
      const form = request.routeOptions.url === '/console/setup' ? setup : signIn;
      return form(request, reply, TOKEN_REFUSED, '', 403);
    }),
  );
}

function signInRoutes(scope: FastifyInstance, kit: ConsoleKit): FormPage {
  const { ctx } = kit;
  // Failed sign-ins are counted per address, per account, and per known browser (device cookie).
  const guard = new SignInGuard({ now: () => ctx.clock.now() });
  const form: FormPage = async (request, reply, error, email, status) => {
    const token = reply.generateCsrf({ secure: kit.secure(request) });
    return kit.send(reply, signInPage(token, error, email), status);
  };
  const api = typed(scope);

  api.get('/console/sign-in', {}, async (request, reply) => form(request, reply, null, '', 200));

  api.post('/console/sign-in', { schema: { body: SignInForm } }, async (request, reply) => {
    const email = (request.body.email ?? '').trim().toLowerCase().slice(0, 200);
    // A device cookie whose signature fails counts as none.
    const device = request.unsignCookie(request.cookies[DEVICE_COOKIE] ?? '');
    const check = guard.check(request.ip, email, device.valid ? (device.value ?? undefined) : undefined);
    if (!check.allowed) {
      const wait = check.retryAfterSeconds;
      reply.header('retry-after', String(wait));
      return form(
        request,
        reply,
        `Too many sign-in attempts. Wait ${wait} seconds and try again.`,
        email,
        429,
      );
    }
    const operator = await ctx.operators.checkPassword(email, request.body.password ?? '');
    if (operator === null) {
      guard.failed(request.ip, email, check);
      return form(request, reply, 'Wrong email or password.', email, 401);
    }
    await kit.startSession(request, reply, operator);
    reply.setCookie(DEVICE_COOKIE, guard.issueDevice(operator.email), {
      ...privateCookie('/console/sign-in', kit.secure(request)),
      signed: true,
      maxAge: Math.floor(SIGN_IN_LIMITS.deviceMaxAgeMs / 1000),
    });
    return reply.redirect('/console/connections', 303);
  });
  return form;
}

/** Sign-out: a form of the signed-in pages, so it lives in their scope (their CSRF token). */
export function signOutRoute(scope: FastifyInstance, kit: ConsoleKit): void {
  typed(scope).post('/console/sign-out', { schema: { body: TokenOnlyForm } }, async (request, reply) => {
    await kit.ctx.operators.endSession(request.cookies[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, privateCookie('/', kit.secure(request)));
    return reply.redirect('/console/sign-in', 303);
  });
}
