import { type ClaimedJobs, checkFence, type JobLease, type LeasedJob } from '@agent-teams/core';
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import { CompiledStatement } from './compiled-statement.js';
import type { Database, JobsTable } from './database-types.js';
import { UNFINISHED } from './job-reads.js';
import { ACTIVE_PHASE_LITERALS } from './literal-phase.js';
import { toJob } from './row-mappers.js';
import type { WriteScope } from './write-transaction.js';

/** Registers or renews a server incarnation's lease (one upsert of its row). */
export async function renewServerLease(
  scope: WriteScope,
  args: { serverId: string; host: string; expiresAtMs: number },
): Promise<void> {
  await scope.trx
    .insertInto('server_leases')
    .values({
      server_id: args.serverId,
      host: args.host,
      started_at: scope.now,
      renewed_at: scope.now,
      expires_at_ms: args.expiresAtMs,
    })
    .onConflict((oc) =>
      oc.column('server_id').doUpdateSet({ renewed_at: scope.now, expires_at_ms: args.expiresAtMs, host: args.host }),
    )
    .execute();
}

/**
 * Claims the active jobs no live server holds, then answers every active job `serverId` holds and
 * which of them this claim took over, from which holder.
 *
 * @remarks PostgreSQL: the candidates are locked `FOR UPDATE SKIP LOCKED`, so two servers claiming
 * at once split the orphans instead of queueing on each other's rows, and a row being written by
 * its (live) holder is simply not a candidate this time. The claim bumps `lease_fence`, which is
 * the fencing token every later write of the old holder is checked against. SQLite: one server
 * per file, and the write lock serializes everything anyway. A candidate is taken over when this
 * server holds it afterwards (a candidate was never its own, and its lock is kept to the commit);
 * its previous holder is the one the candidates' read saw, under the lock on PostgreSQL.
 */
export async function claimActiveJobs(
  scope: WriteScope,
  args: { serverId: string; nowMs: number; takeOver?: boolean },
): Promise<ClaimedJobs> {
  // The orphan test, used twice: to pick the candidates, and again in the UPDATE.
  const orphaned = (eb: JobExpressions) => {
    const notMine = eb.or([eb('j.lease_server', 'is', null), eb('j.lease_server', '!=', args.serverId)]);
    return args.takeOver === true ? notMine : eb.and([notMine, eb.not(holderAlive(eb, args.nowMs))]);
  };
  let candidates = scope.trx
    .selectFrom('jobs as j')
    .select(['j.id', 'j.lease_server'])
    .where('j.unfinished', '=', UNFINISHED)
    .where('j.phase', 'in', ACTIVE_PHASE_LITERALS)
    .where(orphaned);
  if (scope.dialect === 'postgres') candidates = candidates.forUpdate().skipLocked();
  const previous = new Map((await candidates.execute()).map((row) => [row.id, row.lease_server]));
  const orphans = [...previous.keys()];
  if (orphans.length > 0) {
    // Checked again: under READ COMMITTED, a row another server claimed and committed between
    // this statement's snapshot and its lock is re-checked against the old anti-join result and
    // would pass; the UPDATE is a new statement with a new snapshot, and the rows are locked now.
    await scope.trx
      .updateTable('jobs as j')
      .set((eb) => ({ lease_server: args.serverId, lease_fence: eb('j.lease_fence', '+', 1) }))
      .where('j.id', 'in', orphans)
      .where(orphaned)
      .execute();
  }
  const held = await heldActiveJobs(scope.trx, args.serverId);
  const takenOver = held
    .filter((entry) => previous.has(entry.job.id))
    .map((entry) => ({ jobId: entry.job.id, fromServer: previous.get(entry.job.id) ?? null }));
  return { held, takenOver };
}

/** Expressions over `jobs as j`. */
type JobExpressions = ExpressionBuilder<Database & { j: Database['jobs'] }, 'j'>;

/** True when the server named in the job's `lease_server` holds a lease unexpired at `nowMs`. */
function holderAlive(eb: JobExpressions, nowMs: number) {
  return eb.exists(
    eb
      .selectFrom('server_leases as s')
      .select('s.server_id')
      .whereRef('s.server_id', '=', 'j.lease_server')
      .where('s.expires_at_ms', '>', nowMs),
  );
}

/** The active jobs a server holds, in creation order (seq); compiled once (`compiled-statement.ts`). */
const HELD_ACTIVE = new CompiledStatement(1, (db, serverId: string) =>
  db
    .selectFrom('jobs')
    .selectAll()
    .where('unfinished', '=', UNFINISHED)
    .where('phase', 'in', ACTIVE_PHASE_LITERALS)
    .where('lease_server', '=', serverId)
    .orderBy('seq'),
);

/** The active jobs `serverId` holds, with their leases, in creation order. */
export async function heldActiveJobs(db: Kysely<Database>, serverId: string): Promise<LeasedJob[]> {
  const held = await HELD_ACTIVE.rows(db, serverId);
  return held.map((row) => ({ job: toJob(row), lease: leaseOf(row, serverId) }));
}

/**
 * The active jobs `serverId` holds and those no live server holds (orphans), in creation order: one
 * plain read, no lock; compiled once.
 */
const HELD_OR_ORPHANED = new CompiledStatement(2, (db, serverId: string, nowMs: number) =>
  db
    .selectFrom('jobs as j')
    .selectAll()
    .where('j.unfinished', '=', UNFINISHED)
    .where('j.phase', 'in', ACTIVE_PHASE_LITERALS)
    .where((eb) =>
      eb.or([eb('j.lease_server', 'is', null), eb('j.lease_server', '=', serverId), eb.not(holderAlive(eb, nowMs))]),
    )
    .orderBy('j.seq'),
);

/**
 * What a claim without `takeOver` answers when no active job is orphaned: the active jobs
 * `serverId` holds, read with the orphans in one plain statement; null when the read saw an orphan
 * (the caller then claims in a write transaction, {@link claimActiveJobs}).
 *
 * @remarks Most passes of a server sharing its database claim nothing, and the claim's write
 * transaction cost them its `BEGIN`, a locking read, the held jobs' read and a `COMMIT`: three
 * round trips on PostgreSQL. The answer is the same: the transaction's held read was a plain read
 * too, and an orphan seen here is claimed there under its lock, checked again (a row another
 * server claimed meanwhile is skipped or re-checked as before).
 */
export async function heldUnlessOrphaned(
  db: Kysely<Database>,
  serverId: string,
  nowMs: number,
): Promise<LeasedJob[] | null> {
  const rows = await HELD_OR_ORPHANED.rows(db, serverId, nowMs);
  if (rows.some((row) => row.lease_server !== serverId)) return null;
  return rows.map((row) => ({ job: toJob(row), lease: leaseOf(row, serverId) }));
}

/** Gives up every lease of a server and removes its server row. */
export async function releaseServerLeases(scope: WriteScope, serverId: string): Promise<void> {
  await scope.trx
    .updateTable('jobs')
    .set({ lease_server: null })
    .where('unfinished', '=', UNFINISHED)
    .where('lease_server', '=', serverId)
    .execute();
  await scope.trx.deleteFrom('server_leases').where('server_id', '=', serverId).execute();
}

/**
 * Refuses a write by a server that no longer holds the job: the row must name the same server and
 * fence as the lease the writer holds.
 */
export function checkLease(row: Pick<Selectable<JobsTable>, 'lease_server' | 'lease_fence'>, lease: JobLease): void {
  checkFence(row.lease_server === null ? null : { serverId: row.lease_server, fence: Number(row.lease_fence) }, lease);
}

function leaseOf(row: Pick<Selectable<JobsTable>, 'lease_fence'>, serverId: string): JobLease {
  return { serverId, fence: Number(row.lease_fence) };
}
