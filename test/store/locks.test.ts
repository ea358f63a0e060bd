import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LockTimeoutError, type Store } from '../../src/store/types.ts';
import { dialects, type StoreHarness } from './harness.ts';

/** A promise plus the function that resolves it: lets a test hold a lock exactly as long as it wants. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => {
    open = r;
  });
  return { wait, open };
}

for (const { name, factory, skip } of await dialects()) {
  describe(`store locks (${name})`, { skip }, () => {
    let h: StoreHarness;
    let a: Store;
    let b: Store;
    before(async () => {
      h = await factory();
      a = await h.open();
      b = await h.open();
    });
    after(async () => h?.cleanup());

    test('runs fn under the lock and returns its value; the lock is free again afterwards', async () => {
      assert.equal(await a.locks.withLock('k-simple', 5000, async () => 42), 42);
      assert.equal(await b.locks.withLock('k-simple', 5000, async () => 'again', { waitMs: 0 }), 'again');
    });

    test('releases the lock when fn throws', async () => {
      await assert.rejects(
        a.locks.withLock('k-throw', 5000, async () => {
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(await b.locks.withLock('k-throw', 5000, async () => 1, { waitMs: 0 }), 1);
    });

    test('two instances on one store: the second waits for the first, critical sections never overlap', async () => {
      const events: string[] = [];
      const held = gate();
      const entered = gate();
      const first = a.locks.withLock('k-cross', 10_000, async () => {
        events.push('a:in');
        entered.open();
        await held.wait;
        events.push('a:out');
      });
      await entered.wait;
      const second = b.locks.withLock('k-cross', 10_000, async () => {
        events.push('b:in');
        events.push('b:out');
      });
      // b is now polling; let a finish.
      held.open();
      await Promise.all([first, second]);
      assert.deepEqual(events, ['a:in', 'a:out', 'b:in', 'b:out']);
    });

    test('many contenders across instances: a read-modify-write under the lock loses no update', async () => {
      let counter = 0;
      let inside = 0;
      let maxInside = 0;
      const bump = (s: Store) =>
        s.locks.withLock('k-counter', 10_000, async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          const read = counter;
          await new Promise((r) => setImmediate(r));
          counter = read + 1;
          inside--;
        });
      await Promise.all(Array.from({ length: 12 }, (_, i) => bump(i % 2 ? a : b)));
      assert.equal(counter, 12);
      assert.equal(maxInside, 1);
    });

    test('a contender gives up with LockTimeoutError after waitMs while the holder keeps the lock', async () => {
      const held = gate();
      const entered = gate();
      const holder = a.locks.withLock('k-timeout', 10_000, async () => {
        entered.open();
        await held.wait;
      });
      await entered.wait;
      await assert.rejects(
        b.locks.withLock('k-timeout', 10_000, async () => 'never', { waitMs: 50 }),
        (err: unknown) => err instanceof LockTimeoutError && err.key === 'k-timeout',
      );
      held.open();
      await holder;
    });

    test('different keys do not block each other', async () => {
      const held = gate();
      const entered = gate();
      const holder = a.locks.withLock('k-one', 10_000, async () => {
        entered.open();
        await held.wait;
      });
      await entered.wait;
      assert.equal(await b.locks.withLock('k-two', 10_000, async () => 'free', { waitMs: 0 }), 'free');
      held.open();
      await holder;
    });

    test('a holder that dies without releasing frees the lock when its lease runs out', async () => {
      const child = spawn(
        process.execPath,
        [fileURLToPath(new URL('./crash-holder.ts', import.meta.url)), ...h.location, 'k-crash', '300'],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      child.stdout.on('data', (d) => {
        out += String(d);
      });
      const [code] = await once(child, 'exit');
      assert.equal(code, 0);
      assert.equal(out.trim(), 'locked');
      assert.equal(
        await b.locks.withLock('k-crash', 5000, async () => 'taken over', { waitMs: 10_000 }),
        'taken over',
      );
    });
  });
}
