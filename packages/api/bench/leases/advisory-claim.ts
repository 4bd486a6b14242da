import { ACTIVE_PHASES, type LeasedJob } from '@agent-teams/core';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { Database } from '../../src/storage/database-types.js';
import { UNFINISHED } from '../../src/storage/job-reads.js';
import { toJob } from '../../src/storage/row-mappers.js';

/**
 * The orphan condition of the store's `claimActiveJobs`: an unfinished active job another server
 * holds whose lease row has expired (or that nobody holds).
 */
function orphanOf(eb: ExpressionBuilder<Database, 'jobs'>, serverId: string, nowMs: number) {
  return eb.and([
    eb('jobs.unfinished', '=', UNFINISHED),
    eb('jobs.phase', 'in', ACTIVE_PHASES),
    eb.or([eb('jobs.lease_server', 'is', null), eb('jobs.lease_server', '!=', serverId)]),
    eb.not(
      eb.exists(
        eb
          .selectFrom('server_leases as s')
          .select('s.server_id')
          .whereRef('s.server_id', '=', 'jobs.lease_server')
          .where('s.expires_at_ms', '>', nowMs),
      ),
    ),
  ]);
}

/**
 * The rejected alternative to `FOR UPDATE SKIP LOCKED`, written only for the `lease-claims`
 * benchmark: one transaction reads the orphans without row locks, takes
 * `pg_try_advisory_xact_lock(hashtext(id))` per candidate (one round trip for all), and claims
 * those it got, re-checking the orphan condition in the UPDATE (a claimer that committed just
 * before released its advisory locks, so the lock alone does not prove the job is still free).
 * Then it reads what this server holds, as the store does.
 *
 * @remarks Transaction-scoped advisory locks are released at COMMIT, so they cannot outlive a
 * pooled connection; but they only exclude other lockers while both transactions are open, carry
 * no fencing token, and a 32-bit hash can make two jobs share a lock (one of them skipped).
 */
export async function advisoryClaim(
  db: Kysely<Database>,
  args: { serverId: string; nowMs: number },
): Promise<LeasedJob[]> {
  return db.transaction().execute(async (trx) => {
    const candidates = await trx
      .selectFrom('jobs')
      .select('jobs.id')
      .where((eb) => orphanOf(eb, args.serverId, args.nowMs))
      .execute();
    const ids = candidates.map((row) => row.id);
    if (ids.length > 0) {
      const locked = await sql<{ id: string }>`
        select id from unnest(${ids}::text[]) as id where pg_try_advisory_xact_lock(hashtext(id))`.execute(trx);
      const mine = locked.rows.map((row) => row.id);
      if (mine.length > 0) {
        await trx
          .updateTable('jobs')
          .set((eb) => ({ lease_server: args.serverId, lease_fence: eb('lease_fence', '+', 1) }))
          .where('id', 'in', mine)
          .where((eb) => orphanOf(eb, args.serverId, args.nowMs))
          .execute();
      }
    }
    const held = await trx
      .selectFrom('jobs')
      .selectAll()
      .where('unfinished', '=', UNFINISHED)
      .where('phase', 'in', ACTIVE_PHASES)
      .where('lease_server', '=', args.serverId)
      .orderBy('seq')
      .execute();
    return held.map((row) => ({ job: toJob(row), lease: { serverId: args.serverId, fence: Number(row.lease_fence) } }));
  });
}
