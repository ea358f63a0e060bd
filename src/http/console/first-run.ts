// First run: while no operator exists, /console/setup creates the first one with the one-time setup
// code issued at start-up, then signs it in. It shares the sign-in form's scope and CSRF secret.
import type { FastifyInstance } from 'fastify';
import { OperatorError } from '../../admin/operators.ts';
import { MIN_PASSWORD_LENGTH } from '../../admin/passwords.ts';
import { RateLimiter } from '../../auth/rate-limit.ts';
import { ApiError } from '../../errors/index.ts';
import { typed } from '../routes/types.ts';
import { sentence } from './errors.ts';
import { html } from './html.ts';
import type { ConsoleKit, FormPage } from './kit.ts';
import { CLI, csrfField, layout, notices } from './pages.ts';
import { SetupForm } from './schemas.ts';

/** Where the start-up put the code (never the data directory's path). */
export function codeWhere(sandbox: boolean) {
  return sandbox
    ? html`in the output of <code>npm start</code> (the line “Setup code”)`
    : html`in the file <code>setup-code</code> in the service’s data directory (its start-up output names the file; only the service’s user can read it)`;
}

function setupPage(csrf: string, sandbox: boolean, error: string | null, email: string, open: boolean) {
  if (!open) {
    return layout(
      { operator: null, csrf },
      'Set up',
      html`<div class="signin card"><h1>Already set up</h1><p>An operator exists, so the setup code is no longer accepted.</p><p><a href="/console/sign-in">Sign in</a></p></div>`,
    );
  }
  return layout(
    { operator: null, csrf },
    'Create the first operator',
    html`<div class="signin card" data-test="setup"><h1>Create the first operator</h1>
<p>No operator exists yet. The setup code is ${codeWhere(sandbox)}; it works once.</p>
${notices(error)}
<form method="post" action="/console/setup">${csrfField(csrf)}
<label>Setup code <input name="setup_code" autocomplete="off" spellcheck="false" required placeholder="crmps-…" class="mono"></label>
<label>Email <input type="email" name="email" autocomplete="username" required value="${email}"></label>
<label>Password (${MIN_PASSWORD_LENGTH} characters at least) <input type="password" name="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required></label>
<button type="submit">Create operator and sign in</button></form>
<p class="muted">Or on the server: <code>${CLI} operators create --email you@example.com</code>, then <a href="/console/sign-in">sign in</a>.</p></div>`,
  );
}

export function setupRoutes(scope: FastifyInstance, kit: ConsoleKit): FormPage {
  const { ctx } = kit;
  // Like sign-in: 10 attempts a minute per client address, 5 per 15 minutes in all (one code).
  const perAddress = new RateLimiter({ perSecond: 10 / 60, burst: 10 }, ctx.clock);
  const perCode = new RateLimiter({ perSecond: 5 / 900, burst: 5 }, ctx.clock);
  const page: FormPage = async (request, reply, error, email, status) => {
    const csrf = reply.generateCsrf({ secure: kit.secure(request) });
    const open = await ctx.setup.open();
    return kit.send(reply, setupPage(csrf, ctx.config.sandbox, error, email, open), open ? status : 409);
  };
  const api = typed(scope);

  api.get('/console/setup', {}, async (request, reply) => page(request, reply, null, '', 200));

  api.post('/console/setup', { schema: { body: SetupForm } }, async (request, reply) => {
    const email = (request.body.email ?? '').trim().toLowerCase().slice(0, 200);
    try {
      perAddress.take(request.ip);
      perCode.take('setup');
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      reply.headers(err.headers);
      const wait = err.headers['retry-after'] ?? 'a few';
      return page(request, reply, `Too many attempts. Wait ${wait} seconds and try again.`, email, 429);
    }
    const { setup_code, password } = request.body;
    let operator: Awaited<ReturnType<typeof ctx.setup.createFirstOperator>>;
    try {
      operator = await ctx.setup.createFirstOperator(setup_code ?? '', email, password ?? '');
    } catch (err) {
      // A refused code (401, or 409 once an operator exists) or a refused email or password (400).
      if (!(err instanceof OperatorError)) throw err;
      return page(request, reply, sentence(err.message), email, err.status);
    }
    request.log.info({ operator: operator.id }, 'first operator created with the setup code');
    await kit.startSession(request, reply, operator);
    return reply.redirect('/console/connections?welcome=1', 303);
  });
  return page;
}
