import { TeamStatus } from '@agent-teams/core';
import { type Kysely, sql } from 'kysely';
import { WalkPart } from './admission-owner-walk.js';
import { wokenJobs } from './change-waits.js';
import { CompiledStatement } from './compiled-statement.js';
import type { Database, SeqValue } from './database-types.js';
import { UNFINISHED } from './job-reads.js';
import { SLOT_WAITING_PHASE_LITERALS } from './literal-phase.js';

/** Past every job's seq (PostgreSQL's `bigint` maximum): the step that leaves an owner. */
const PAST_EVERY_SEQ = sql.lit('9223372036854775807');

/**
 * The first job waiting for a slot past (`owner`, `seq`) in `jobs_waiting_owner_seq_idx`'s order
 * (migration 0022): one seek of that index, whose `(owner, seq)` row comparison no other index can
 * serve, so the plan cannot turn into a scan of the primary key filtered by owner.
 */
function nextWaiting(after: ReturnType<typeof sql> | null) {
  const past = after === null ? sql`` : sql` and (j.owner, j.seq) > ${after}`;
  return sql`select j.owner, j.id, j.team_id, j.conversation_id, j.seq from jobs as j
    where j.unfinished = ${UNFINISHED} and j.phase in (${sql.join(SLOT_WAITING_PHASE_LITERALS)})${past}
    order by j.owner, j.seq limit 1`;
}

/**
 * Whether owner `w` has a job waiting for a slot past its job `w` (the walk's last step): one seek
 * of `jobs_waiting_owner_seq_idx` by the row, as `nextWaiting` seeks. Without one, a walk that
 * stopped at its bound saw all of that owner's waiting jobs, so it is not cut.
 */
const MORE_WAITING = sql`select 1 from jobs as j
    where j.unfinished = ${UNFINISHED} and j.phase in (${sql.join(SLOT_WAITING_PHASE_LITERALS)})
      and (j.owner, j.seq) > (w.owner, w.seq) and j.owner = w.owner`;

/**
 * Whether the waiting job `n` is a head a pass may admit: no older unfinished job holds its
 * conversation, and its team is READY or CLOSED (a closed team's late arrivals are admitted only to
 * be cancelled by the freeze). Never NULL (a team not found does not admit), so the counts stay
 * numbers; `OFFSET 0` keeps it one subquery, evaluated once per step.
 */
const ADMITS = sql`(select coalesce(not exists (select 1 from jobs as e where e.unfinished = ${UNFINISHED}
      and e.conversation_id = n.conversation_id and e.seq < n.seq)
    and (select t.status from teams as t where t.id = n.team_id) in (${sql.lit(TeamStatus.READY)}, ${sql.lit(
      TeamStatus.CLOSED,
    )}), false) as ok offset 0)`;

/**
 * PostgreSQL's admission candidates by owner (decision 0260): each owner's oldest `perOwner`
 * conversation heads that wait for a slot, and every woken wait, with a `cut` row for each owner
 * whose walk stopped at its `walk`-th waiting job before it found them (`part`: {@link WalkPart}).
 *
 * @remarks One recursive walk of the partial `jobs_waiting_owner_seq_idx` in (owner, seq) order:
 * each step is one seek past the last job seen (`w`), or past the owner (to the next owner's first)
 * once it kept `perOwner` heads or looked at `walk` jobs; `kept` and `looked` count per owner (an
 * owner is named cut only when it has a waiting job past the `walk`-th, one more seek). So a
 * pass costs what the heads it returns cost, a few seeks per owner, where the scan by conversation
 * (decision 0228) costs a seek per conversation with unfinished work, every pass: 2.0 ms a pass,
 * 25 % of the database's time per drained job in the engine benchmark. Decision 0249's walk on
 * SQLite is the same answer; PostgreSQL's planner read that form's owners through a bitmap and a
 * sort, and this form leaves it one index to use. Every step also checks its job (`ADMITS`).
 */
function postgresOwnerWalk(db: Kysely<Database>, now: string, perOwner: number, walk: number) {
  // Typed as a head: a `cut` row's columns but `owner` and `part` are NULL (`trimCandidates` drops it).
  const walked = sql<WalkedRow>`(with recursive w(owner, id, team_id, conversation_id, seq, ok, kept, looked) as (
    select n.owner, n.id, n.team_id, n.conversation_id, n.seq, q.ok, q.ok::int, 1
      from (${nextWaiting(null)}) as n cross join lateral ${ADMITS} as q
    union all
    select n.owner, n.id, n.team_id, n.conversation_id, n.seq, q.ok,
        case when n.owner = w.owner then w.kept else 0 end + q.ok::int,
        case when n.owner = w.owner then w.looked + 1 else 1 end
      from w cross join lateral (${nextWaiting(
        sql`(w.owner, case when w.kept >= ${perOwner} or w.looked >= ${walk} then ${PAST_EVERY_SEQ} else w.seq end)`,
      )}) as n cross join lateral ${ADMITS} as q
  )
  select id, owner, team_id, conversation_id, seq, ${sql.lit(WalkPart.HEAD)} as part
    from w where ok and kept <= ${perOwner}
  union all
  select null, owner, null, null, null, ${sql.lit(WalkPart.CUT)} from w where looked = ${walk} and kept < ${perOwner}
    and exists (${MORE_WAITING}))`;
  return db
    .selectFrom(walked.as('h'))
    .select(['h.id', 'h.owner', 'h.team_id', 'h.conversation_id', 'h.seq', 'h.part'])
    .unionAll(wokenJobs(db, now).select(sql.lit<string>(WalkPart.WOKEN).as('part')));
}

/** A row of {@link postgresOwnerWalk} as the candidates' read types it. */
interface WalkedRow {
  readonly id: string;
  readonly owner: string;
  readonly team_id: string;
  readonly conversation_id: string;
  readonly seq: SeqValue;
  readonly part: string;
}

/** Compiled once: its values are parameters, so one prepared statement serves every (perOwner, walk). */
const OWNER_WALK = new CompiledStatement(3, postgresOwnerWalk);

/** The rows of {@link postgresOwnerWalk}: `perOwner` heads per owner, walks cut at `walk` jobs. */
export function readPostgresOwnerWalk(db: Kysely<Database>, now: string, perOwner: number, walk: number) {
  // A walk of no job would name no owner cut: at least one, as on SQLite.
  return OWNER_WALK.rows(db, now, perOwner, Math.max(1, walk));
}

/**
 * Reads by conversation that follow a read whose backlog the walk serves badly, before the walk is
 * tried again: a walk cut short (an owner's first `walk` waiting jobs held too few heads: a member
 * with a deep queue) costs the admission a second read, and many owners with about one head each
 * cost it a few seeks per owner where the scan costs one per conversation (decision 0249).
 */
export const SCAN_READS_AFTER_A_BAD_WALK = 16;

/** Per database (its dialect adapter): reads by conversation left before the next walk. */
const scansLeft = new WeakMap<object, number>();

/** True when PostgreSQL's next candidate read walks by owner ({@link readPostgresOwnerWalk}). */
export function postgresWalks(scope: { readonly trx: Kysely<Database> }): boolean {
  return (scansLeft.get(scope.trx.getExecutor().adapter) ?? 0) === 0;
}

/**
 * Notes a used candidate read's verdict: `scan` when its backlog is one the walk serves badly (see
 * above); otherwise one of the reads by conversation left is counted down. Called once per read a
 * pass used, so a read asked ahead and never used (a ride whose planning lock was busy) counts nothing.
 */
export function notePostgresRead(scope: { readonly trx: Kysely<Database> }, scan: boolean): void {
  const key = scope.trx.getExecutor().adapter;
  const left = scansLeft.get(key) ?? 0;
  if (scan) scansLeft.set(key, SCAN_READS_AFTER_A_BAD_WALK);
  else if (left > 0) scansLeft.set(key, left - 1);
}

/** Forgets every database's verdict, so the next read walks (tests). */
export function forgetPostgresReads(scope: { readonly trx: Kysely<Database> }): void {
  scansLeft.delete(scope.trx.getExecutor().adapter);
}
