// Jobs and idempotency keys in the store, on SQLite and PostgreSQL: leases that exactly one
// instance takes, keys that exactly one request claims, input pages, results in pieces, pruning.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Store } from '../../src/store/types.ts';
import { dialects, iso, type StoreHarness } from './harness.ts';

let seq = 0;
const jobRow = (now = iso()) => ({
  id: `job_store_${process.pid}_${seq++}`,
  tokenId: 'tok_1',
  connectionId: 'conn_1',
  requestId: null,
  operation: 'insert',
  objectName: 'Account',
  input: '{}',
  total: 3,
  now,
});

for (const { name, factory, skip } of await dialects()) {
  describe(`store jobs and idempotency keys (${name})`, { skip }, () => {
    let h: StoreHarness;
    let a: Store;
    let b: Store;
    before(async () => {
      h = await factory();
      a = await h.open();
      b = await h.open();
    });
    after(async () => h?.cleanup());

    test('a job is claimed by exactly one of many instances at once; an expired lease is claimed again', async () => {
      const job = await a.jobs.insert(jobRow());
      const now = Date.now();
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? a : b).jobs.claim(job.id, `owner-${i}`, iso(now), iso(now + 60_000)),
        ),
      );
      assert.equal(claims.filter(Boolean).length, 1);
      const held = await a.jobs.find(job.id);
      assert.equal(held?.state, 'running');
      assert.equal(held?.attempts, 1);
      assert.deepEqual(await b.jobs.claimable(iso(now), 100).then((ids) => ids.includes(job.id)), false);
      // Its holder dies: once the lease has run out, one instance takes it over.
      const later = now + 120_000;
      assert.ok((await a.jobs.claimable(iso(later), 100)).includes(job.id));
      const again = await Promise.all([
        a.jobs.claim(job.id, 'late-a', iso(later), iso(later + 60_000)),
        b.jobs.claim(job.id, 'late-b', iso(later), iso(later + 60_000)),
      ]);
      assert.equal(again.filter(Boolean).length, 1);
      const owner = again[0] ? 'late-a' : 'late-b';
      assert.equal(
        await a.jobs.renew(job.id, held?.leaseOwner ?? '', iso(later)),
        null,
        'the old holder lost it',
      );
      assert.deepEqual(await a.jobs.renew(job.id, owner, iso(later + 90_000)), { cancelRequested: false });
      await b.jobs.requestCancel(job.id, iso(later));
      assert.deepEqual(await a.jobs.renew(job.id, owner, iso(later + 90_000)), { cancelRequested: true });
      assert.ok(
        await a.jobs.finish(
          job.id,
          owner,
          {
            state: 'cancelled',
            counts: { processed: 3, succeeded: 1, failed: 2 },
            iface: 'collections',
            error: null,
          },
          iso(later),
        ),
      );
      assert.equal(
        await a.jobs.claim(job.id, 'x', iso(later * 2), iso(later * 2)),
        false,
        'a finished job is never claimed',
      );
    });

    test('a queued job nobody runs is cancelled at once', async () => {
      const job = await a.jobs.insert(jobRow());
      await b.jobs.requestCancel(job.id, iso());
      const got = await a.jobs.find(job.id);
      assert.equal(got?.state, 'cancelled');
      assert.equal(await a.jobs.claim(job.id, 'x', iso(), iso(Date.now() + 1000)), false);
    });

    test('a job stored under its instance’s lease stays queued, is taken by no other instance, and is started by its own', async () => {
      const now = Date.now();
      const job = await a.jobs.insert({
        ...jobRow(iso(now)),
        lease: { owner: 'own', until: iso(now + 60_000) },
      });
      assert.equal(job.state, 'queued');
      assert.equal(job.leaseOwner, 'own');
      assert.equal((await b.jobs.claimable(iso(now), 100)).includes(job.id), false);
      assert.equal(await b.jobs.claim(job.id, 'other', iso(now), iso(now + 60_000)), false);
      // Waiting its turn, the lease is renewed and a cancel asked for elsewhere is seen; the job stays queued.
      assert.deepEqual(await a.jobs.renew(job.id, 'own', iso(now + 90_000)), { cancelRequested: false });
      await b.jobs.requestCancel(job.id, iso(now));
      assert.equal((await a.jobs.find(job.id))?.state, 'queued', 'not cancelled under a live lease');
      assert.deepEqual(await a.jobs.renew(job.id, 'own', iso(now + 90_000)), { cancelRequested: true });
      assert.equal(await a.jobs.claim(job.id, 'own', iso(now), iso(now + 60_000)), true);
      const started = await a.jobs.find(job.id);
      assert.equal(started?.state, 'running');
      assert.equal(started?.attempts, 1);
      // Its instance dies while it waits: once the lease has run out, another takes it over.
      const other = await a.jobs.insert({
        ...jobRow(iso(now)),
        lease: { owner: 'dead', until: iso(now + 1000) },
      });
      const later = now + 5000;
      assert.ok((await b.jobs.claimable(iso(later), 100)).includes(other.id));
      assert.equal(await b.jobs.claim(other.id, 'other', iso(later), iso(later + 60_000)), true);
      assert.equal(await a.jobs.renew(other.id, 'dead', iso(later + 60_000)), null);
    });

    test('results are stored in pieces and read back by position; the journal keeps the last value', async () => {
      const job = await a.jobs.insert(jobRow());
      const piece = (first: number, n: number) =>
        JSON.stringify(
          Array.from({ length: n }, (_, k) => ({ id: `r${first + k}`, success: true, errors: [] })),
        );
      await a.jobs.putResults(job.id, [
        { piece: 0, first: 0, results: piece(0, 5) },
        { piece: 1, first: 5, results: piece(5, 5) },
        { piece: 2, first: 10, results: piece(10, 2) },
      ]);
      const pieces = await b.jobs.resultPieces(job.id, 7, 11);
      assert.deepEqual(
        pieces.map((p) => p.first),
        [5, 10],
      );
      await a.jobs.journalSet(job.id, 'r1:c0', '{"state":"sending"}', iso());
      await b.jobs.journalSet(job.id, 'r1:c0', '{"state":"done"}', iso());
      assert.equal(await a.jobs.journalGet(job.id, 'r1:c0'), '{"state":"done"}');
      assert.equal(await a.jobs.journalGet(job.id, 'nope'), undefined);
      await a.jobs.addCrmJobId(job.id, '750x', iso());
      await a.jobs.addCrmJobId(job.id, '750x', iso());
      assert.deepEqual((await b.jobs.find(job.id))?.crmJobIds, ['750x']);
    });

    test('a job’s input pages are stored with its row and read back by number, byte for byte, on any instance', async () => {
      const pages = [Buffer.from([0, 1, 2, 255]), Buffer.from('[{"Name":"é ✓ 😀"}]')];
      const job = await a.jobs.insert({ ...jobRow(), input: 'paged:{"records":[]}', inputPages: pages });
      assert.equal(await b.jobs.input(job.id), 'paged:{"records":[]}');
      assert.deepEqual(Buffer.from((await b.jobs.inputPage(job.id, 0)) ?? []), pages[0]);
      assert.deepEqual(Buffer.from((await b.jobs.inputPage(job.id, 1)) ?? []), pages[1]);
      assert.equal(await b.jobs.inputPage(job.id, 2), undefined);
      assert.equal(await b.jobs.inputPage('job_none', 0), undefined);
      assert.equal(await b.jobs.input('job_none'), null);
    });

    test('a job whose input pages cannot all be stored is not stored at all', async () => {
      const row = { ...jobRow(), inputPages: [Buffer.from('[1]'), null as unknown as Buffer] };
      await assert.rejects(a.jobs.insert(row));
      assert.equal(await b.jobs.find(row.id), null);
      assert.equal(await b.jobs.inputPage(row.id, 0), undefined);
    });

    test('an idempotency key is claimed by exactly one of many concurrent requests, across instances', async () => {
      const now = Date.now();
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? a : b).idempotency.claim({
            tokenId: 'tok_1',
            key: `same-${name}`,
            requestHash: 'h1',
            jobId: null,
            leaseUntil: iso(now + 60_000),
            now: iso(now),
          }),
        ),
      );
      assert.equal(claims.filter((c) => c.created).length, 1);
      const other = await a.idempotency.claim({
        tokenId: 'tok_2',
        key: `same-${name}`,
        requestHash: 'h2',
        jobId: null,
        leaseUntil: iso(now + 60_000),
        now: iso(now),
      });
      assert.equal(other.created, true, 'keys are per token');
      await b.idempotency.complete('tok_1', `same-${name}`, { status: 200, headers: '{}', body: '{"ok":1}' });
      const seen = await a.idempotency.claim({
        tokenId: 'tok_1',
        key: `same-${name}`,
        requestHash: 'h1',
        jobId: null,
        leaseUntil: iso(now),
        now: iso(now),
      });
      assert.ok(!seen.created && seen.row.state === 'done' && seen.row.body === '{"ok":1}');
    });

    test('prune removes old keys and jobs finished long ago, never an unfinished job', async () => {
      const old = new Date(Date.now() - 10 * 24 * 3600_000).toISOString();
      await a.idempotency.claim({
        tokenId: 't',
        key: 'old',
        requestHash: 'h',
        jobId: null,
        leaseUntil: old,
        now: old,
      });
      assert.ok((await a.idempotency.prune(iso(Date.now() - 24 * 3600_000))) >= 1);
      const finished = await a.jobs.insert({ ...jobRow(old), inputPages: [Buffer.from('[1]')] });
      await a.jobs.claim(finished.id, 'o', old, old);
      await a.jobs.putResults(finished.id, [{ piece: 0, first: 0, results: '[]' }]);
      await a.jobs.finish(
        finished.id,
        'o',
        { state: 'completed', counts: { processed: 0, succeeded: 0, failed: 0 }, iface: null, error: null },
        old,
      );
      const running = await a.jobs.insert({ ...jobRow(old), inputPages: [Buffer.from('[1]')] });
      await a.jobs.claim(running.id, 'o', old, old);
      await a.jobs.prune(iso(Date.now() - 7 * 24 * 3600_000));
      assert.equal(await a.jobs.find(finished.id), null);
      assert.deepEqual(await a.jobs.resultPieces(finished.id, 0, 10), []);
      assert.equal(await a.jobs.inputPage(finished.id, 0), undefined, 'its input pages went with it');
      assert.notEqual(await a.jobs.find(running.id), null);
      assert.equal(Buffer.from((await a.jobs.inputPage(running.id, 0)) ?? []).toString(), '[1]');
    });
  });
}
