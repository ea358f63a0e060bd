// The operator lifecycle in the console: add with the password rules, disable and enable, reset
// and change passwords, list and end sessions, remove (never the last manager); each action ends
// the operator's sessions and keys at once and is in the request log with who did it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { Browser, EMAIL, PASSWORD } from './console-browser.ts';

const OTHER = 'second@example.com';
const OTHER_PASSWORD = 'another fine passphrase';

const adminApi = (baseUrl: string, key: string) =>
  fetch(`${baseUrl}/v1/admin/connections`, { headers: { authorization: `Bearer ${key}` } });

const alert = (text: string) => /role="alert">([^<]+)</.exec(text)?.[1] ?? '';
const status = (text: string) => /role="status">([^<]+)</.exec(text)?.[1] ?? '';

test('a manager adds operators under the password rules, disables, enables and removes them; their sessions and keys end at once', async (t) => {
  const s = await startStack(t);
  const owner = await s.ctx.operators.create(EMAIL, PASSWORD);
  assert.equal(owner.canManage, true, 'the first operator manages the others');
  const m = new Browser(s);
  assert.equal((await m.signIn()).status, 303);
  const page = await m.go('/console/operators');
  assert.equal(page.status, 200);
  assert.match(page.text, /href="\/console\/operators"/, 'in the navigation of a manager');
  const csrf = m.csrf(page.text);

  for (const [password, why] of [
    ['short pass', /at least 12 characters/],
    [' '.repeat(12), /whitespace only/],
    ['aaaaaaaaaaaa', /one character repeated/],
    ['password1234', /most common passwords/],
    ['qwertyuiop123', /most common passwords/],
  ] as const) {
    const refused = await m.go('/console/operators', { form: { _csrf: csrf, email: OTHER, password } });
    assert.equal(refused.status, 400, password);
    assert.match(alert(refused.text), why);
  }
  assert.equal((await s.ctx.operators.list()).length, 1, 'nothing was added');
  const added = await m.go('/console/operators', {
    form: { _csrf: csrf, email: OTHER, password: OTHER_PASSWORD },
  });
  assert.equal(added.status, 201);
  assert.match(status(added.text), /Added second@example\.com/);
  const other = await s.ctx.operators.find(OTHER);
  assert.ok(other);
  assert.equal(other.canManage, false);

  // The new operator signs in, has a key, and may not manage the others.
  const o = new Browser(s);
  assert.equal((await o.signIn(OTHER, OTHER_PASSWORD)).status, 303);
  const own = await o.go('/console/connections');
  assert.doesNotMatch(own.text, /href="\/console\/operators"/);
  assert.equal((await o.go('/console/operators')).status, 403);
  const refusedDisable = await o.go(`/console/operators/${owner.id}/disable`, {
    form: { _csrf: o.csrf(own.text) },
  });
  assert.equal(refusedDisable.status, 403);
  assert.equal((await s.ctx.operators.find(EMAIL))?.disabledAt, null);
  const { key } = await s.ctx.operators.createKey(other, 'ci');
  assert.equal((await adminApi(s.baseUrl, key)).status, 200);

  // Disabled: the open session and the key stop at once, and the password no longer signs in.
  const disabled = await m.go(`/console/operators/${other.id}/disable`, { form: { _csrf: csrf } });
  assert.equal(disabled.status, 200);
  assert.match(status(disabled.text), /Disabled second@example\.com/);
  assert.equal((await o.go('/console/connections')).status, 303);
  assert.equal((await adminApi(s.baseUrl, key)).status, 401);
  assert.equal((await new Browser(s).signIn(OTHER, OTHER_PASSWORD)).status, 401);
  const enabled = await m.go(`/console/operators/${other.id}/enable`, { form: { _csrf: csrf } });
  assert.match(status(enabled.text), /Enabled/);
  assert.equal((await o.signIn(OTHER, OTHER_PASSWORD)).status, 303);
  assert.equal((await adminApi(s.baseUrl, key)).status, 401, 'a revoked key stays revoked');

  // The last operator who manages the others can be neither removed nor disabled.
  for (const act of ['remove', 'disable']) {
    const last = await m.go(`/console/operators/${owner.id}/${act}`, { form: { _csrf: csrf } });
    assert.equal(last.status, 409, act);
    assert.match(alert(last.text), /last enabled operator who can manage/);
  }
  const removed = await m.go(`/console/operators/${other.id}/remove`, { form: { _csrf: csrf } });
  assert.equal(removed.status, 200);
  assert.equal(await s.ctx.operators.find(OTHER), null);
  assert.equal((await o.go('/console/connections')).status, 303, 'the removed operator’s session ended');
  const lastOne = await m.go(`/console/operators/${owner.id}/remove`, { form: { _csrf: csrf } });
  assert.equal(lastOne.status, 409);
  assert.match(alert(lastOne.text), /last operator cannot be removed/);

  // Every action is in the request log with the manager who did it; the refused one of the other
  // operator with theirs.
  const log = await s.ctx.admin.requests({ limit: 50 });
  const actions = log.filter((e) => e.interface === 'console').map((e) => [e.path, e.status, e.actor]);
  for (const want of [
    [`/console/operators/${other.id}/disable`, 200, owner.id],
    [`/console/operators/${other.id}/enable`, 200, owner.id],
    [`/console/operators/${other.id}/remove`, 200, owner.id],
    [`/console/operators/${owner.id}/remove`, 409, owner.id],
    ['/console/operators', 201, owner.id],
    ['/console/operators', 400, owner.id],
    [`/console/operators/${owner.id}/disable`, 403, other.id],
  ])
    assert.ok(
      actions.some((a) => JSON.stringify(a) === JSON.stringify(want)),
      `${JSON.stringify(want)} in ${JSON.stringify(actions)}`,
    );
  const shown = await m.go('/console/requests');
  assert.match(shown.text, new RegExp(`data-actor="${owner.id}"`));
});

test('an operator changes their own password with the current one; a manager resets another’s and ends their sessions', async (t) => {
  const s = await startStack(t);
  const owner = await s.ctx.operators.create(EMAIL, PASSWORD);
  const other = await s.ctx.operators.create(OTHER, OTHER_PASSWORD);
  const here = new Browser(s);
  const elsewhere = new Browser(s);
  await here.signIn(OTHER, OTHER_PASSWORD);
  await elsewhere.signIn(OTHER, OTHER_PASSWORD);
  const { key } = await s.ctx.operators.createKey(other, null);

  const account = await here.go('/console/account');
  assert.equal(account.status, 200);
  assert.equal((account.text.match(/<tr data-session=/g) ?? []).length, 2, 'both sessions listed');
  assert.match(account.text, /this browser/);
  const csrf = here.csrf(account.text);
  const wrong = await here.go('/console/account/password', {
    form: { _csrf: csrf, current_password: 'not my password', new_password: 'a brand new passphrase' },
  });
  assert.equal(wrong.status, 403);
  assert.match(alert(wrong.text), /current password is wrong/);
  const weak = await here.go('/console/account/password', {
    form: { _csrf: csrf, current_password: OTHER_PASSWORD, new_password: 'zzzzzzzzzzzzzzzz' },
  });
  assert.equal(weak.status, 400);
  assert.equal((await elsewhere.go('/console/connections')).status, 200, 'nothing changed yet');

  const changed = await here.go('/console/account/password', {
    form: { _csrf: csrf, current_password: OTHER_PASSWORD, new_password: 'a brand new passphrase' },
  });
  assert.equal(changed.status, 303);
  assert.equal((await here.go('/console/connections')).status, 200, 'this browser stays signed in');
  assert.equal((await elsewhere.go('/console/connections')).status, 303, 'the other session ended');
  assert.equal((await adminApi(s.baseUrl, key)).status, 401, 'the keys were revoked');
  assert.equal((await new Browser(s).signIn(OTHER, OTHER_PASSWORD)).status, 401);
  assert.equal((await new Browser(s).signIn(OTHER, 'a brand new passphrase')).status, 303);

  // A manager sees the other's sessions, ends one, then resets the password.
  const m = new Browser(s);
  await m.signIn();
  const detail = await m.go(`/console/operators/${other.id}`);
  assert.equal(detail.status, 200);
  const sessions = [...detail.text.matchAll(/<tr data-session="([0-9a-f]{64})"/g)].map((x) => x[1]);
  assert.equal(sessions.length, 2);
  const mcsrf = m.csrf(detail.text);
  const ended = await m.go(`/console/operators/${other.id}/sessions/${sessions[0]}/end`, {
    form: { _csrf: mcsrf },
  });
  assert.equal(ended.status, 200);
  assert.equal((await s.ctx.operators.listSessions({ cli: 'test' }, other.id)).length, 1);
  const reset = await m.go(`/console/operators/${other.id}/password`, {
    form: { _csrf: mcsrf, new_password: 'set by the manager today' },
  });
  assert.equal(reset.status, 200);
  assert.match(status(reset.text), /reset/);
  assert.equal((await here.go('/console/connections')).status, 303);
  assert.equal((await s.ctx.operators.listSessions({ cli: 'test' }, other.id)).length, 0);
  assert.equal((await new Browser(s).signIn(OTHER, 'set by the manager today')).status, 303);
  // The manager's own session is untouched; a non-manager cannot end another's session.
  assert.equal((await m.go('/console/connections')).status, 200);
  const mine = (await s.ctx.operators.listSessions({ cli: 'test' }, owner.id))[0];
  assert.ok(mine);
  const o = new Browser(s);
  await o.signIn(OTHER, 'set by the manager today');
  const ocsrf = o.csrf((await o.go('/console/account')).text);
  const refused = await o.go(`/console/account/sessions/${mine.idHash}/end`, { form: { _csrf: ocsrf } });
  assert.equal(refused.status, 403);
  assert.equal((await m.go('/console/connections')).status, 200);
});
