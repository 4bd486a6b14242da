import { TeamStatus } from '@agent-teams/core';
import { type ExpressionBuilder, type Kysely, type RawBuilder, sql } from 'kysely';
import { wokenJobs } from './change-waits.js';
import { CompiledShapes } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { UNFINISHED } from './job-reads.js';
import { literalLimit } from './literal-limit.js';
import { SLOT_WAITING_PHASE_LITERALS } from './literal-phase.js';
import type { WriteScope } from './write-transaction.js';

/**
 * How many of an owner's jobs waiting for a slot the walk looks at, at most, beyond the heads it
 * asks for (see {@link sqliteOwnerWalk}).
 *
 * @remarks A job waiting behind another of its conversation (a member with several requests
 * queued) is looked at and skipped. Past this many of an owner's jobs, a walk that has not found
 * the heads it was asked for stops, and the admission reads the candidates by conversation
 * instead (`readCandidates`), so a conversation with thousands queued behind a running head never
 * costs a walk of thousands per pass.
 */
export const OWNER_WALK_EXTRA_ROWS = 32;

/** What a row of {@link sqliteOwnerWalk} is. */
export const WalkPart = {
  /** A conversation head the walk kept. */
  HEAD: 'head',
  /** A woken wait (`wokenJobs`): a candidate, not one of its owner's heads. */
  WOKEN: 'woken',
  /** An owner whose walk was cut (every column but `owner` NULL). */
  CUT: 'cut',
} as const;

/** A row of {@link sqliteOwnerWalk}: a head or a woken wait, or (`id` NULL) an owner whose walk was cut. */
export interface WalkRow {
  readonly part: (typeof WalkPart)[keyof typeof WalkPart];
  readonly id: string | null;
  readonly owner: string;
  readonly team_id: string | null;
  readonly conversation_id: string | null;
  readonly seq: number | string | null;
}

/** Past every job's seq: the bound of an owner's walk that has no bound (a number literal, so the comparison is numeric). */
const NO_BOUND = sql.lit(Number.MAX_SAFE_INTEGER);

/**
 * The first owner past `after` (the first of all when null) with a job waiting for a slot: one seek
 * of `jobs_waiting_owner_seq_idx`, named (`INDEXED BY`): without statistics SQLite preferred the
 * unfinished jobs' phase index and sorted every waiting job by owner, at every step.
 */
function nextOwner(after: RawBuilder<unknown> | null) {
  const past = after === null ? sql`` : sql` and w.owner > ${after}`;
  return sql`select w.owner from jobs as w indexed by jobs_waiting_owner_seq_idx where w.unfinished = ${UNFINISHED} and w.phase in (${sql.join(SLOT_WAITING_PHASE_LITERALS)})${past} order by w.owner limit 1`;
}

/** An owner's jobs that wait for a slot: the rows of the partial `jobs_waiting_owner_seq_idx` (migration 0021). */
function waitingOf(eb: Pick<ExpressionBuilder<Database, never>, 'selectFrom'>) {
  return eb
    .selectFrom('jobs as w')
    .where('w.unfinished', '=', UNFINISHED)
    .where('w.phase', 'in', SLOT_WAITING_PHASE_LITERALS);
}

/**
 * The heads an owner's walk keeps: its waiting jobs in seq order up to its bound, each kept when
 * no older unfinished job holds its conversation and its team admits, the first `perOwner`.
 */
function ownerHeads(eb: Pick<ExpressionBuilder<Database, never>, 'selectFrom'>, perOwner: number) {
  return (
    waitingOf(eb)
      .where('w.owner', '=', sql.ref<string>('o.owner'))
      .where('w.seq', '<=', sql<number>`coalesce(${sql.ref('o.bound')}, ${NO_BOUND})`)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('jobs as e')
              .select('e.seq')
              .where('e.unfinished', '=', UNFINISHED)
              .whereRef('e.conversation_id', '=', 'w.conversation_id')
              .whereRef('e.seq', '<', 'w.seq'),
          ),
        ),
      )
      // A closed team's late arrivals (a receipt) are admitted only to be cancelled by the freeze.
      .where((eb) => eb.selectFrom('teams as t').select('t.status').whereRef('t.id', '=', 'w.team_id'), 'in', [
        TeamStatus.READY,
        TeamStatus.CLOSED,
      ])
      .orderBy('w.seq')
      .limit(literalLimit(perOwner))
  );
}

/**
 * SQLite's admission candidates by owner: each owner's oldest `perOwner` conversation heads that
 * wait for a slot in a READY or CLOSED team, and every woken wait (the same answer as the loose
 * scan by conversation, `admission-candidates.ts`), plus one marker row for each owner whose walk
 * was cut at `walk` jobs; `part` ({@link WalkPart}) tells them apart.
 *
 * @remarks Decision 0249. The owners come from a loose scan of the partial index of waiting jobs
 * by (owner, seq), one seek each; each owner's waiting jobs are then read in seq order from the
 * same index, a job kept when no older unfinished job holds its conversation (one seek of the
 * unfinished-conversation index) and its team admits, until `perOwner` are kept. A job waiting
 * behind another of its conversation is skipped, so the walk stops at the owner's `walk`-th
 * waiting job (its seq read first, `bound`): an owner with more waiting jobs than that (one seek
 * past the bound) is named cut, and when it kept fewer than `perOwner` heads it may have
 * more past the cut, so the caller reads by conversation instead. An owner with exactly `walk`
 * waiting jobs was walked to its end: not cut. The scan by
 * conversation costs a seek per conversation with unfinished work, every pass (1.0–1.4 ms for a
 * backlog over 400 conversations here); this costs what the heads it returns cost. PostgreSQL
 * walks in a form of its own, one seek of the index per step (`pg-owner-walk.ts`, decision 0260).
 * `perOwner` and `walk` are literals, one compiled statement per pair (`CompiledShapes`): SQLite
 * re-plans a statement whose bound `LIMIT` it read while planning (decision 0231).
 */
export function sqliteOwnerWalk(db: Kysely<Database>, now: string, perOwner: number, walk: number) {
  const owners = db
    // Raw: Kysely writes a raw body without parentheses, and has no `INDEXED BY`.
    .withRecursive(
      'r(owner)',
      () =>
        sql<{ owner: string | null }>`(select (${nextOwner(null)}) union all select (${nextOwner(
          sql.ref('r.owner'),
        )}) from ${sql.table('r')} where ${sql.ref('r.owner')} is not null)`,
    )
    .with(
      (cte) => cte('o').materialized(),
      (db) =>
        db
          .selectFrom('r')
          .select((eb) => [
            'r.owner',
            // The owner's `walk`-th waiting job: where its walk stops (NULL: fewer, no stop).
            waitingOf(eb)
              .select('w.seq')
              .where('w.owner', '=', sql.ref<string>('r.owner'))
              .orderBy('w.seq')
              .limit(literalLimit(1))
              .offset(literalLimit(walk - 1))
              .as('bound'),
          ])
          .where('r.owner', 'is not', null),
    );
  // SQLite has no `LATERAL`: each owner's kept heads are a list, joined back by key.
  const heads = owners
    .selectFrom('o')
    // CROSS JOIN keeps SQLite's join order (each kept head by its key).
    .crossJoin('jobs as j')
    .select(['j.id', 'j.owner', 'j.team_id', 'j.conversation_id', 'j.seq', sql.lit(WalkPart.HEAD).as('part')])
    .where('j.seq', 'in', (eb) => ownerHeads(eb, perOwner).select('w.seq'))
    .$castTo<WalkRow>();
  return heads
    .unionAll((eb) =>
      eb
        .selectFrom('o')
        .select([
          sql<null>`null`.as('id'),
          sql<string>`${sql.ref('o.owner')}`.as('owner'),
          sql<null>`null`.as('team_id'),
          sql<null>`null`.as('conversation_id'),
          sql<null>`null`.as('seq'),
          sql.lit(WalkPart.CUT).as('part'),
        ])
        // Cut only when the owner has more than the walk looked at: one seek past the bound.
        .where('o.bound', 'is not', null)
        .where((eb) =>
          eb.exists(
            waitingOf(eb)
              .select('w.seq')
              .where('w.owner', '=', sql.ref<string>('o.owner'))
              .where('w.seq', '>', sql.ref<number>('o.bound')),
          ),
        ),
    )
    .unionAll(wokenJobs(db, now).select(sql.lit(WalkPart.WOKEN).as('part')));
}

/** Planned shapes of {@link sqliteOwnerWalk}: one per (perOwner, walk) pair seen; past them, built each time. */
const WALK_SHAPES = 32;
const SHAPES = new CompiledShapes<WalkRow>(WALK_SHAPES);

/** The rows of {@link sqliteOwnerWalk} for `perOwner` heads per owner, walks cut at `walk` jobs. */
export async function readOwnerWalk(scope: WriteScope, perOwner: number, walk: number): Promise<WalkRow[]> {
  const build = (target: Kysely<Database>, [at]: readonly unknown[]) =>
    sqliteOwnerWalk(target, at as string, perOwner, walk);
  return (await SHAPES.execute(scope.trx, `${perOwner}:${walk}`, build, [scope.now])).rows;
}
