import type { Kysely, Selectable } from 'kysely';
import type { Database, JobsTable } from '../schema.ts';
import type { JobRow, JobState, JobsRepository } from '../types.ts';

const UNFINISHED: JobState[] = ['queued', 'running'];

// Every column but `input`: a job is read often (progress polls) and jobs stored by earlier
// versions hold their whole input there (megabytes).
const JOB_COLUMNS = [
  'id',
  'token_id',
  'connection_id',
  'request_id',
  'operation',
  'object_name',
  'state',
  'interface',
  'total',
  'processed',
  'succeeded',
  'failed',
  'crm_job_ids',
  'cancel_requested',
  'lease_owner',
  'lease_expires_at',
  'attempts',
  'error',
  'created_at',
  'started_at',
  'finished_at',
  'updated_at',
] as const;

function toJob(r: Omit<Selectable<JobsTable>, 'input'>): JobRow {
  return {
    id: r.id,
    tokenId: r.token_id,
    connectionId: r.connection_id,
    requestId: r.request_id,
    operation: r.operation,
    objectName: r.object_name,
    state: r.state as JobState,
    interface: r.interface,
    total: Number(r.total),
    processed: Number(r.processed),
    succeeded: Number(r.succeeded),
    failed: Number(r.failed),
    crmJobIds: JSON.parse(r.crm_job_ids) as string[],
    cancelRequested: Number(r.cancel_requested) === 1,
    leaseOwner: r.lease_owner,
    leaseExpiresAt: r.lease_expires_at,
    attempts: Number(r.attempts),
    error: r.error,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    updatedAt: r.updated_at,
  };
}

export function jobsRepository(db: Kysely<Database>): JobsRepository {
  return {
    // A job's row: submitted, read, listed.
    async insert(row) {
      const values = {
        id: row.id,
        token_id: row.tokenId,
        connection_id: row.connectionId,
        request_id: row.requestId,
        operation: row.operation,
        object_name: row.objectName,
        input: row.input,
        state: 'queued',
        interface: null,
        total: row.total,
        processed: 0,
        succeeded: 0,
        failed: 0,
        crm_job_ids: '[]',
        cancel_requested: 0,
        lease_owner: row.lease?.owner ?? null,
        lease_expires_at: row.lease?.until ?? null,
        attempts: 0,
        error: null,
        created_at: row.now,
        started_at: null,
        finished_at: null,
        updated_at: row.now,
      };
      // One transaction: a job is never seen (claimed, resumed, replayed) without all its input.
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('jobs').values(values).execute();
        const pages = (row.inputPages ?? []).map((body, page) => ({ job_id: row.id, page, body }));
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
        .where('job_id', '=', id)
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
      if (tokenId !== undefined) q = q.where('token_id', '=', tokenId);
      if (after !== undefined) {
        q = q.where((eb) =>
          eb.or([
            eb('created_at', '<', after.createdAt),
            eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
          ]),
        );
      }
      const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toJob);
    },
    // Jobs counted by state, and finished ones pruned.
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
        .where('finished_at', '<', before);
      await db.deleteFrom('job_input_pages').where('job_id', 'in', old).execute();
      await db.deleteFrom('job_results').where('job_id', 'in', old).execute();
      await db.deleteFrom('job_journal').where('job_id', 'in', old).execute();
      const r = await db
        .deleteFrom('jobs')
        .where('state', 'not in', UNFINISHED)
        .where('finished_at', '<', before)
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    // A job's lease: taken, renewed, and the jobs whose lease can be taken.
    async claim(id, owner, now, leaseUntil) {
      const r = await db
        .updateTable('jobs')
        .set((eb) => ({
          lease_owner: owner,
          lease_expires_at: leaseUntil,
          state: 'running',
          started_at: eb.fn.coalesce('started_at', eb.val(now)),
          attempts: eb('attempts', '+', 1),
          updated_at: now,
        }))
        .where('id', '=', id)
        .where('state', 'in', UNFINISHED)
        .where((eb) =>
          eb.or([
            eb('lease_owner', 'is', null),
            eb('lease_expires_at', '<=', now),
            eb('lease_owner', '=', owner),
          ]),
        )
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async renew(id, owner, leaseUntil) {
      const r = await db
        .updateTable('jobs')
        .set({ lease_expires_at: leaseUntil })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .where('state', 'in', UNFINISHED)
        .returning('cancel_requested')
        .executeTakeFirst();
      return r === undefined ? null : { cancelRequested: Number(r.cancel_requested) === 1 };
    },
    async claimable(now, limit) {
      const rows = await db
        .selectFrom('jobs')
        .select('id')
        .where('state', 'in', UNFINISHED)
        .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_expires_at', '<=', now)]))
        .orderBy('created_at')
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },
    // A job's run: its progress, CRM job ids, outcome and cancellation.
    async progress(id, owner, counts, iface, now) {
      await db
        .updateTable('jobs')
        .set({ ...counts, ...(iface === null ? {} : { interface: iface }), updated_at: now })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .execute();
    },
    async addCrmJobId(id, crmJobId, now) {
      const r = await db.selectFrom('jobs').select('crm_job_ids').where('id', '=', id).executeTakeFirst();
      if (r === undefined) return;
      const ids = JSON.parse(r.crm_job_ids) as string[];
      if (ids.includes(crmJobId)) return;
      ids.push(crmJobId);
      await db
        .updateTable('jobs')
        .set({ crm_job_ids: JSON.stringify(ids), updated_at: now })
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
          finished_at: now,
          updated_at: now,
          lease_owner: null,
          lease_expires_at: null,
        })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async requestCancel(id, now) {
      await db
        .updateTable('jobs')
        .set({ cancel_requested: 1, updated_at: now })
        .where('id', '=', id)
        .where('state', 'in', UNFINISHED)
        .execute();
      // Nobody runs a queued job without a lease: it ends here, before anything was sent.
      await db
        .updateTable('jobs')
        .set({ state: 'cancelled', finished_at: now, updated_at: now })
        .where('id', '=', id)
        .where('state', '=', 'queued')
        .where('lease_owner', 'is', null)
        .execute();
    },
    // What a job keeps as it runs: its result pieces and its journal.
    async putResults(id, pieces) {
      if (pieces.length === 0) return;
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('job_results').where('job_id', '=', id).execute();
        await tx
          .insertInto('job_results')
          .values(
            pieces.map((p) => ({ job_id: id, piece: p.piece, first_index: p.first, results: p.results })),
          )
          .execute();
      });
    },
    async resultPieces(id, from, to) {
      // The piece that holds `from` starts at or before it: take the last such, then the rest up to `to`.
      const start = await db
        .selectFrom('job_results')
        .select('first_index')
        .where('job_id', '=', id)
        .where('first_index', '<=', from)
        .orderBy('first_index', 'desc')
        .limit(1)
        .executeTakeFirst();
      const rows = await db
        .selectFrom('job_results')
        .select(['first_index', 'results'])
        .where('job_id', '=', id)
        .where('first_index', '>=', Number(start?.first_index ?? 0))
        .where('first_index', '<', to)
        .orderBy('first_index')
        .execute();
      return rows.map((r) => ({ first: Number(r.first_index), results: r.results }));
    },
    async journalGet(id, key) {
      const r = await db
        .selectFrom('job_journal')
        .select('value')
        .where('job_id', '=', id)
        .where('key', '=', key)
        .executeTakeFirst();
      return r?.value;
    },
    async journalSet(id, key, value, now) {
      await db
        .insertInto('job_journal')
        .values({ job_id: id, key, value, updated_at: now })
        .onConflict((oc) => oc.columns(['job_id', 'key']).doUpdateSet({ value, updated_at: now }))
        .execute();
    },
  };
}
