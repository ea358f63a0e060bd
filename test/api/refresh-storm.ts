import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { startStack } from '../helpers/stack.ts';

/** Runs at most `size` functions at a time, the rest in order as slots free up. */
class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(size: number) {
    this.#free = size;
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}

/**
 * `n` concurrent requests on an expired access token: every one answers 200 and the service
 * refreshes exactly once.
 */
export async function refreshStorm(t: TestContext, n: number): Promise<void> {
  const s = await startStack(t);
  const [id] = s.sf.org.insert('Account', [{ Name: 'Storm' }]).map((r) => r.id);
  assert.ok(id !== undefined);
  // Warm up: the access token is cached in memory and the describe cache is filled.
  assert.equal((await s.api('/v1/object/get/Account', { body: { data: { ids: [id] } } })).status, 200);

  const expired = await fetch(`${s.sf.url}/__sandbox/tokens/expire`, { method: 'POST' });
  assert.ok(expired.ok);
  s.sf.accounting.reset();
  // All are issued at once; at most 256 hold a connection at a time. More fresh connections
  // than the listen backlog (511) make a busy machine reset some before the service sees them.
  const slots = new Slots(256);
  const answers = await Promise.all(
    Array.from({ length: n }, () =>
      slots.run(() =>
        s.api<{ data: Array<{ Id: string } | null> }>('/v1/object/get/Account', {
          body: { data: { ids: [id], fields: ['Name'] } },
        }),
      ),
    ),
  );
  const statuses = new Map<number, number>();
  for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
  assert.deepEqual([...statuses], [[200, n]]);
  assert.ok(answers.every((a) => a.body.data[0]?.Id === id));
  assert.equal(s.sf.accounting.count('oauth.token.refresh_token'), 1);
}
