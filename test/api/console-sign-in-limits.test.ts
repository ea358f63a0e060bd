// Sign-in limits: failures only are counted, per address and account for unknown browsers, and a
// browser that signed in before keeps an allowance of its own (its signed device cookie).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SIGN_IN_LIMITS } from '../../src/admin/sign-in-guard.ts';
import { startStack } from '../helpers/stack.ts';
import { Browser, EMAIL, PASSWORD } from './console-browser.ts';

/** Time stands still: no allowance refills while a test runs, however slow the machine. */
const frozen = () => {
  const at = Date.now();
  return { overrides: { clock: { now: () => at } } };
};

test('successful sign-ins are not counted as failures', async (t) => {
  const s = await startStack(t, frozen());
  await s.ctx.operators.create(EMAIL, PASSWORD);
  // More sign-ins than the per-account allowance of failures, each from a fresh browser.
  for (let i = 0; i < SIGN_IN_LIMITS.perAccount.burst + 3; i++) {
    assert.equal((await new Browser(s).signIn()).status, 303, `sign-in ${i + 1}`);
  }
});

test('failures from elsewhere lock the account for unknown browsers only: the owner’s browser signs in', async (t) => {
  const s = await startStack(t, frozen());
  await s.ctx.operators.create(EMAIL, PASSWORD);
  const owner = new Browser(s);
  const first = await owner.signIn();
  assert.equal(first.status, 303);
  const device = first.setCookies.find((c) => c.startsWith('crmp_console_device=')) ?? '';
  for (const flag of ['Path=/console/sign-in', 'HttpOnly', 'SameSite=Strict'])
    assert.ok(device.split('; ').includes(flag), `${flag} in ${device}`);
  assert.match(device, /Max-Age=15552000/, '180 days');
  await owner.go('/console/sign-out', {
    form: { _csrf: owner.csrf((await owner.go('/console/tokens')).text) },
  });

  // Someone else guesses until the account is locked for unknown browsers, then even the right
  // password is refused to them.
  const guesser = new Browser(s);
  for (let i = 0; i < SIGN_IN_LIMITS.perAccount.burst; i++)
    assert.equal((await guesser.signIn(EMAIL, `wrong guess number ${i}`)).status, 401);
  const locked = await guesser.signIn();
  assert.equal(locked.status, 429);
  assert.ok(Number(locked.headers.get('retry-after')) > 0);

  // A device cookie that was tampered with, or issued for another account, is an unknown browser.
  const value = owner.cookies.get('crmp_console_device') ?? '';
  const forged = new Browser(s);
  forged.cookies.set('crmp_console_device', `${value.slice(0, -2)}AA`);
  assert.equal((await forged.signIn()).status, 429);
  await s.ctx.operators.create('other@example.com', PASSWORD);
  const otherOwner = new Browser(s);
  assert.equal((await otherOwner.signIn('other@example.com', PASSWORD)).status, 303);
  const borrowed = new Browser(s);
  borrowed.cookies.set('crmp_console_device', otherOwner.cookies.get('crmp_console_device') ?? '');
  assert.equal((await borrowed.signIn()).status, 429);

  // The owner's browser is not held back by them.
  const again = await owner.signIn();
  assert.equal(again.status, 303);
  assert.equal((await owner.go('/console/connections')).status, 200);

  // Its own allowance: its own failures are limited too.
  for (let i = 0; i < SIGN_IN_LIMITS.perKnownBrowser.burst; i++)
    assert.equal((await owner.signIn(EMAIL, `owner typo ${i}`)).status, 401);
  assert.equal((await owner.signIn()).status, 429);
});

test('failures per address are limited across accounts', async (t) => {
  const s = await startStack(t, frozen());
  await s.ctx.operators.create(EMAIL, PASSWORD);
  const b = new Browser(s);
  // Different accounts each time (so the per-account limit is not what stops it).
  for (let i = 0; i < SIGN_IN_LIMITS.perAddress.burst; i++) {
    const answer = await b.signIn(`nobody${i}@example.com`, 'wrong password here');
    assert.equal(answer.status, 401);
  }
  const limited = await b.signIn('someone-else@example.com', 'wrong password here');
  assert.equal(limited.status, 429);
});
