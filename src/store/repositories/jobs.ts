import type { Kysely, Selectable } from 'kysely';
import type { Database, JobsTable } from '../schema.ts';
import type { JobRow, JobState, JobsRepository } from '../types.ts';

const UNFINISHED: JobState[] = ['queued', 'running'];

// Every column but `input`: a job is read often (progress polls) and jobs stored by earlier
// versions hold their whole input there (megabytes).
const JOB_COLUMNS = [
  'id',
  'tokenId',
  'connectionId',
  'requestId',
  'operation',
  'objectName',
  'state',
  'interface',
  'total',
  'processed',
  'succeeded',
  'failed',
  'crmJobIds',
  'cancelRequested',
  'leaseOwner',
  'leaseExpiresAt',
  'attempts',
  'error',
  'createdAt',
  'startedAt',
  'finishedAt',
  'updatedAt',
] as const;

function toJob(r: Omit<Selectable<JobsTable>, 'input'>): JobRow {
  return { ...r, crmJobIds: JSON.parse(r.crmJobIds) as string[], cancelRequested: r.cancelRequested === 1 };
}

export function jobsRepository(db: Kysely<Database>): JobsRepository {
  return { ...rows(db), ...leases(db), ...kept(db) };
}

/** A job's row: submitted, read, listed, counted by state, pruned when finished long ago. */
function rows(
  db: Kysely<Database>,
): Pick<JobsRepository, 'insert' | 'input' | 'inputPage' | 'find' | 'list' | 'countByState' | 'prune'> {
  return {
    async insert(row) {
      const { inputPages, now, lease, ...given } = row;
      const values = {
        ...given,
        state: 'queued' as const,
        interface: null,
        processed: 0,
        succeeded: 0,
        failed: 0,
        crmJobIds: '[]',
        cancelRequested: 0,
        leaseOwner: lease?.owner ?? null,
        leaseExpiresAt: lease?.until ?? null,
        attempts: 0,
        error: null,
        createdAt: now,
        startedAt: null,
        finishedAt: null,
        updatedAt: now,
      };
      // One transaction: a job is never seen (claimed, resumed, replayed) without all its input.
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('jobs').values(values).execute();
        const pages = (inputPages ?? []).map((body, page) => ({ jobId: row.id, page, body }));
        if (pages.length > 0) await tx.insertInto('job_input_pages').values(pages).execute();
      });
      const { input: _input, ...rest } = values;
      return toJob(rest);
    },
    async input(id) {
      const r = await db.selectFrom('jobs').select('input').where('id', '=', id).executeTakeFirst();
      return r?.input ?? null;
    },
    async inputPage(id, page) {
      const r = await db
        .selectFrom('job_input_pages')
        .select('body')
        .where('jobId', '=', id)
        .where('page', '=', page)
        .executeTakeFirst();
      return r?.body;
    },
    async find(id) {
      const r = await db.selectFrom('jobs').select(JOB_COLUMNS).where('id', '=', id).executeTakeFirst();
      return r ? toJob(r) : null;
    },
    async list({ tokenId, limit, after }) {
      let q = db.selectFrom('jobs').select(JOB_COLUMNS);
      if (tokenId !== undefined) q = q.where('tokenId', '=', tokenId);
      if (after !== undefined) {
        q = q.where((eb) =>
          eb.or([
            eb('createdAt', '<', after.createdAt),
            eb.and([eb('createdAt', '=', after.createdAt), eb('id', '<', after.id)]),
          ]),
        );
      }
      const rows = await q.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toJob);
    },
    async countByState() {
      const rows = await db
        .selectFrom('jobs')
        .select(['state', (eb) => eb.fn.countAll<string | number>().as('n')])
        .groupBy('state')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
    },
    async prune(before) {
      const old = db
        .selectFrom('jobs')
        .select('id')
        .where('state', 'not in', UNFINISHED)
        .where('finishedAt', '<', before);
      for (const table of ['job_input_pages', 'job_results', 'job_journal'] as const)
        await db.deleteFrom(table).where('jobId', 'in', old).execute();
      const r = await db.deleteFrom('jobs').where('id', 'in', old).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}

/** A job's lease (taken, renewed, the jobs whose lease can be taken) and its run: progress, CRM job ids, outcome, cancellation. */
function leases(
  db: Kysely<Database>,
): Pick<
  JobsRepository,
  'claim' | 'renew' | 'claimable' | 'progress' | 'addCrmJobId' | 'finish' | 'requestCancel'
> {
  return {
    async claim(id, owner, now, leaseUntil) {
      const r = await db
        .updateTable('jobs')
        .set((eb) => ({
          leaseOwner: owner,
          leaseExpiresAt: leaseUntil,
          state: 'running',
          startedAt: eb.fn.coalesce('startedAt', eb.val(now)),
          attempts: eb('attempts', '+', 1),
          updatedAt: now,
        }))
        .where('id', '=', id)
        .where('state', 'in', UNFINISHED)
        .where((eb) =>
          eb.or([
            eb('leaseOwner', 'is', null),
            eb('leaseExpiresAt', '<=', now),
            eb('leaseOwner', '=', owner),
          ]),
        )
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async renew(id, owner, leaseUntil) {
      const r = await db
        .updateTable('jobs')
        .set({ leaseExpiresAt: leaseUntil })
        .where('id', '=', id)
        .where('leaseOwner', '=', owner)
        .where('state', 'in', UNFINISHED)
        .returning('cancelRequested')
        .executeTakeFirst();
      return r === undefined ? null : { cancelRequested: r.cancelRequested === 1 };
    },
    async claimable(now, limit) {
      const rows = await db
        .selectFrom('jobs')
        .select('id')
        .where('state', 'in', UNFINISHED)
        .where((eb) => eb.or([eb('leaseOwner', 'is', null), eb('leaseExpiresAt', '<=', now)]))
        .orderBy('createdAt')
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },
    async progress(id, owner, counts, iface, now) {
      await db
        .updateTable('jobs')
        .set({ ...counts, ...(iface === null ? {} : { interface: iface }), updatedAt: now })
        .where('id', '=', id)
        .where('leaseOwner', '=', owner)
        .execute();
    },
    async addCrmJobId(id, crmJobId, now) {
      const r = await db.selectFrom('jobs').select('crmJobIds').where('id', '=', id).executeTakeFirst();
      if (r === undefined) return;
      const ids = JSON.parse(r.crmJobIds) as string[];
      if (ids.includes(crmJobId)) return;
      ids.push(crmJobId);
      await db
        .updateTable('jobs')
        .set({ crmJobIds: JSON.stringify(ids), updatedAt: now })
        .where('id', '=', id)
        .execute();
    },
    async finish(id, owner, outcome, now) {
      const r = await db
        .updateTable('jobs')
        .set({
          state: outcome.state,
          ...outcome.counts,
          ...(outcome.iface === null ? {} : { interface: outcome.iface }),
          error: outcome.error,
          finishedAt: now,
          updatedAt: now,
          leaseOwner: null,
          leaseExpiresAt: null,
        })
        .where('id', '=', id)
        .where('leaseOwner', '=', owner)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async requestCancel(id, now) {
      await db
        .updateTable('jobs')
        .set({ cancelRequested: 1, updatedAt: now })
        .where('id', '=', id)
        .where('state', 'in', UNFINISHED)
        .execute();
      // Nobody runs a queued job without a lease: it ends here, before anything was sent.
      await db
        .updateTable('jobs')
        .set({ state: 'cancelled', finishedAt: now, updatedAt: now })
        .where('id', '=', id)
        .where('state', '=', 'queued')
        .where('leaseOwner', 'is', null)
        .execute();
    },
  };
}

/** What a job keeps as it runs: its result pieces and its journal. */
function kept(
  db: Kysely<Database>,
): Pick<JobsRepository, 'putResults' | 'resultPieces' | 'journalGet' | 'journalSet'> {
  return {
    async putResults(id, pieces) {
      if (pieces.length === 0) return;
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('job_results').where('jobId', '=', id).execute();
        await tx
          .insertInto('job_results')
          .values(pieces.map((p) => ({ jobId: id, piece: p.piece, firstIndex: p.first, results: p.results })))
          .execute();
      });
    },
    async resultPieces(id, from, to) {
      // The piece that holds `from` starts at or before it: take the last such, then the rest up to `to`.
      const start = await db
        .selectFrom('job_results')
        .select('firstIndex')
        .where('jobId', '=', id)
        .where('firstIndex', '<=', from)
        .orderBy('firstIndex', 'desc')
        .limit(1)
        .executeTakeFirst();
      const rows = await db
        .selectFrom('job_results')
        .select(['firstIndex', 'results'])
        .where('jobId', '=', id)
        .where('firstIndex', '>=', start?.firstIndex ?? 0)
        .where('firstIndex', '<', to)
        .orderBy('firstIndex')
        .execute();
      return rows.map((r) => ({ first: r.firstIndex, results: r.results }));
    },
    async journalGet(id, key) {
      const r = await db
        .selectFrom('job_journal')
        .select('value')
        .where('jobId', '=', id)
        .where('key', '=', key)
        .executeTakeFirst();
      return r?.value;
    },
    async journalSet(id, key, value, now) {
      await db
        .insertInto('job_journal')
        .values({ jobId: id, key, value, updatedAt: now })
        .onConflict((oc) => oc.columns(['jobId', 'key']).doUpdateSet({ value, updatedAt: now }))
        .execute();
    },
  };
}
