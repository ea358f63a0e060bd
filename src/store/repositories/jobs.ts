import type { Kysely, Selectable } from 'kysely';
import type { JobCounts, JobRow, JobState, NewJobRow } from '../rows.ts';
import type { Database, JobsTable } from '../schema.ts';

const UNFINISHED: JobState[] = ['queued', 'running'];

// Every column but `input`, which holds the whole input (megabytes) of jobs stored by earlier versions.
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

export function jobsRepository(db: Kysely<Database>) {
  return { ...submitted(db), ...rows(db), ...leases(db), ...runs(db), ...kept(db) };
}

/** A job as submitted: its row and input stored together, the input read back as stored. */
function submitted(db: Kysely<Database>) {
  return {
    async insert(row: NewJobRow): Promise<JobRow> {
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
    /** The job row's input text, as stored; null when there is no such job. */
    async input(id: string): Promise<string | null> {
      const r = await db.selectFrom('jobs').select('input').where('id', '=', id).executeTakeFirst();
      return r?.input ?? null;
    },
    /** One page of the job's input list (numbered from 0), as stored; undefined when there is none. */
    async inputPage(id: string, page: number): Promise<Uint8Array | undefined> {
      const r = await db
        .selectFrom('job_input_pages')
        .select('body')
        .where('jobId', '=', id)
        .where('page', '=', page)
        .executeTakeFirst();
      return r?.body;
    },
  };
}

/** A job's row: read, listed, counted by state, pruned when finished long ago. */
function rows(db: Kysely<Database>) {
  return {
    /** The job without its input (which may be megabytes). */
    async find(id: string): Promise<JobRow | null> {
      const r = await db.selectFrom('jobs').select(JOB_COLUMNS).where('id', '=', id).executeTakeFirst();
      return r ? toJob(r) : null;
    },
    /** A token's jobs, newest first, after the (createdAt, id) of the previous page's last. */
    async list(filter: {
      tokenId?: string;
      limit: number;
      after?: { createdAt: string; id: string };
    }): Promise<JobRow[]> {
      const { tokenId, limit, after } = filter;
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
    /** How many jobs the store holds in each state (metrics). */
    async countByState(): Promise<Record<string, number>> {
      const rows = await db
        .selectFrom('jobs')
        .select(['state', (eb) => eb.fn.countAll<string | number>().as('n')])
        .groupBy('state')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
    },
    /** Deletes jobs finished before `before` (with, by cascade, their pages, results and journal); the count. */
    async prune(before: string): Promise<number> {
      const r = await db
        .deleteFrom('jobs')
        .where('state', 'not in', UNFINISHED)
        .where('finishedAt', '<', before)
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}

/** A job's lease: taken, renewed, and the jobs whose lease can be taken. */
function leases(db: Kysely<Database>) {
  return {
    /** Starts an unfinished job under `owner`'s lease if the lease is free, expired or `owner`'s; true when taken. */
    async claim(id: string, owner: string, now: string, leaseUntil: string): Promise<boolean> {
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
    /** Extends a lease still held on an unfinished job (queued or running); null when it is no longer held. */
    async renew(id: string, owner: string, leaseUntil: string): Promise<{ cancelRequested: boolean } | null> {
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
    /** Unfinished jobs whose lease is free or expired, oldest first. */
    async claimable(now: string, limit: number): Promise<string[]> {
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
  };
}

/** A job's run: its progress, CRM job ids, outcome and cancellation. */
function runs(db: Kysely<Database>) {
  return {
    async progress(
      id: string,
      owner: string,
      counts: JobCounts,
      iface: string | null,
      now: string,
    ): Promise<void> {
      await db
        .updateTable('jobs')
        .set({ ...counts, ...(iface === null ? {} : { interface: iface }), updatedAt: now })
        .where('id', '=', id)
        .where('leaseOwner', '=', owner)
        .execute();
    },
    async addCrmJobId(id: string, crmJobId: string, now: string): Promise<void> {
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
    async finish(
      id: string,
      owner: string,
      outcome: {
        state: JobState;
        counts: JobCounts;
        iface?: string | null | undefined;
        error?: string | null;
      },
      now: string,
    ): Promise<boolean> {
      const r = await db
        .updateTable('jobs')
        .set({
          state: outcome.state,
          ...outcome.counts,
          ...(outcome.iface == null ? {} : { interface: outcome.iface }),
          error: outcome.error ?? null,
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
    /** Marks a cancel; a queued job nobody runs is cancelled at once. */
    async requestCancel(id: string, now: string): Promise<void> {
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
function kept(db: Kysely<Database>) {
  return {
    /** Results in pieces: `first` is the input position of each piece's first result. */
    async putResults(id: string, pieces: Array<{ piece: number; first: number; results: string }>) {
      if (pieces.length === 0) return;
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('job_results').where('jobId', '=', id).execute();
        await tx
          .insertInto('job_results')
          .values(pieces.map((p) => ({ jobId: id, piece: p.piece, firstIndex: p.first, results: p.results })))
          .execute();
      });
    },
    /** Pieces overlapping positions [from, to). */
    async resultPieces(
      id: string,
      from: number,
      to: number,
    ): Promise<Array<{ first: number; results: string }>> {
      // The piece that holds `from` starts at or before it: take the last such, then the rest up to `to`.
      const start = await db
        .selectFrom('job_results')
        .select('firstIndex')
        .where('jobId', '=', id)
        .where('firstIndex', '<=', from)
        .orderBy('firstIndex', 'desc')
        .limit(1)
        .executeTakeFirst();
      return db
        .selectFrom('job_results')
        .select(['firstIndex as first', 'results'])
        .where('jobId', '=', id)
        .where('firstIndex', '>=', start?.firstIndex ?? 0)
        .where('firstIndex', '<', to)
        .orderBy('firstIndex')
        .execute();
    },
    async journalGet(id: string, key: string): Promise<string | undefined> {
      const r = await db
        .selectFrom('job_journal')
        .select('value')
        .where('jobId', '=', id)
        .where('key', '=', key)
        .executeTakeFirst();
      return r?.value;
    },
    async journalSet(id: string, key: string, value: string, now: string): Promise<void> {
      await db
        .insertInto('job_journal')
        .values({ jobId: id, key, value, updatedAt: now })
        .onConflict((oc) => oc.columns(['jobId', 'key']).doUpdateSet({ value, updatedAt: now }))
        .execute();
    },
  };
}
