import { type AdmissionCandidate, asConversationId, asJobId, asOwnerId, asTeamId, TeamStatus } from '@agent-teams/core';
import { type Expression, type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { OWNER_WALK_EXTRA_ROWS, readOwnerWalk, WalkPart, type WalkRow } from './admission-owner-walk.js';
import { wokenJobs } from './change-waits.js';
import { CompiledStatement } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { UNFINISHED } from './job-reads.js';
import { SLOT_WAITING_PHASE_LITERALS } from './literal-phase.js';
import type { WriteScope } from './write-transaction.js';

/**
 * The head job of each conversation with unfinished work, when that head waits for a slot (QUEUED
 * or ANSWERED) and its team is READY (or CLOSED: see `freezeJob`): each owner's oldest `perOwner`
 * of them (`headsPerOwner`); and every woken wait. Reads only unfinished rows (partial indexes),
 * never the finished history.
 */
function sqliteCandidates(db: Kysely<Database>, now: string, perOwner: number) {
  // The head after a conversation: the first entry of the partial (conversation, seq) index past
  // it, so one seek gives the next conversation and its head at once.
  // Built from the expression builder, as any subquery: one built from `db` would go through its
  // plugins as a statement of its own.
  const headAfter = (eb: Pick<ExpressionBuilder<Database, never>, 'selectFrom'>, after: Expression<string> | null) => {
    let next = eb.selectFrom('jobs as n').select('n.seq').where('n.unfinished', '=', UNFINISHED);
    if (after !== null) next = next.where('n.conversation_id', '>', after);
    return next.orderBy('n.conversation_id').orderBy('n.seq').limit(1);
  };
  // A loose scan of the partial index, one seek per conversation: a backlog of thousands of queued
  // jobs costs what its conversations cost (measured with a subquery per queued job and the scan:
  // SQLite, 3,000 queued over 24 conversations, 4.2 → 0.1 ms). Each step carries only the head's
  // key; the rows of the heads past `perOwner` are never handed to JavaScript.
  const heads = db
    .withRecursive('c(conv, seq)', (db) =>
      db
        .selectFrom('jobs')
        .select(['conversation_id as conv', 'seq'])
        .where('seq', '=', (eb) => headAfter(eb, null))
        .unionAll((db) =>
          db
            .selectFrom('c')
            .innerJoin('jobs as j', (join) =>
              join.on((eb) => eb('j.seq', '=', headAfter(eb, sql.ref<string>('c.conv')))),
            )
            .select(['j.conversation_id as conv', 'j.seq']),
        ),
    )
    .with('w', (db) =>
      db
        .selectFrom('c')
        // CROSS JOIN keeps SQLite's join order (each head by its key) whatever its statistics say.
        .crossJoin('jobs as j')
        .whereRef('j.seq', '=', 'c.seq')
        .select((eb) => [
          'j.seq',
          eb.fn
            .agg<number>('row_number')
            .over((ob) => ob.partitionBy('j.owner').orderBy('j.seq'))
            .as('rank'),
        ])
        .where('j.phase', 'in', SLOT_WAITING_PHASE_LITERALS)
        // A closed team's late arrivals (a receipt) are admitted only to be cancelled by the freeze.
        .where((eb) => eb.selectFrom('teams as t').select('t.status').whereRef('t.id', '=', 'j.team_id'), 'in', [
          TeamStatus.READY,
          TeamStatus.CLOSED,
        ]),
    )
    .selectFrom('w')
    .crossJoin('jobs as j')
    .whereRef('j.seq', '=', 'w.seq')
    .select(['j.id', 'j.owner', 'j.team_id', 'j.conversation_id', 'j.seq'])
    .where('w.rank', '<=', perOwner);
  // One statement for both kinds.
  return heads.unionAll(wokenJobs(db, now));
}

/** The columns of a head the PostgreSQL scan carries from step to step. */
const HEAD_COLUMNS = ['id', 'owner', 'team_id', 'conversation_id', 'seq', 'phase'] as const;

/**
 * PostgreSQL's form of {@link sqliteCandidates}: the same loose scan, but each step carries the
 * whole head (`LATERAL … ORDER BY conversation_id, seq LIMIT 1`, one index scan of the partial
 * index per conversation), so no head is looked up again; the team's status by its key.
 *
 * @remarks Decision 0228. Measured on the engine benchmark's drain, sampled every 0.7 s: the form
 * before it (a `min(conversation_id)` scan, then each head by `min(seq)` through a hash join over
 * every queued job, then the teams by a nested loop) took 5–13 ms a pass; this one 1.1–2.2 ms.
 * SQLite's form (each step carries the head's key, then a join back to `jobs` by `seq`) let
 * PostgreSQL hash every queued job to find the heads again (decision 0226).
 */
function postgresCandidates(db: Kysely<Database>, now: string, perOwner: number) {
  // The first unfinished job past a conversation (or the first of all): the next conversation's head.
  const headAfter = (eb: Pick<ExpressionBuilder<Database, never>, 'selectFrom'>, after: Expression<string> | null) => {
    let next = eb.selectFrom('jobs').select(HEAD_COLUMNS).where('unfinished', '=', UNFINISHED);
    if (after !== null) next = next.where('conversation_id', '>', after);
    return next.orderBy('conversation_id').orderBy('seq').limit(1);
  };
  const heads = db
    .withRecursive('c(id, owner, team_id, conversation_id, seq, phase)', (db) =>
      db
        .selectFrom((eb) => headAfter(eb, null).as('h'))
        .select(['h.id', 'h.owner', 'h.team_id', 'h.conversation_id', 'h.seq', 'h.phase'])
        .unionAll((eb) =>
          eb
            .selectFrom('c')
            .crossJoinLateral((lateral) => headAfter(lateral, sql.ref<string>('c.conversation_id')).as('n'))
            .select(['n.id', 'n.owner', 'n.team_id', 'n.conversation_id', 'n.seq', 'n.phase']),
        ),
    )
    .with('w', (db) =>
      db
        .selectFrom('c')
        .select((eb) => [
          'c.id',
          'c.owner',
          'c.team_id',
          'c.conversation_id',
          'c.seq',
          eb.fn
            .agg<number>('row_number')
            .over((ob) => ob.partitionBy('c.owner').orderBy('c.seq'))
            .as('rank'),
        ])
        .where('c.phase', 'in', SLOT_WAITING_PHASE_LITERALS)
        // By the team's key for each head: a join let the planner loop over every team per head.
        .where((eb) => eb.selectFrom('teams as t').select('t.status').whereRef('t.id', '=', 'c.team_id'), 'in', [
          TeamStatus.READY,
          TeamStatus.CLOSED,
        ]),
    )
    .selectFrom('w')
    .select(['w.id', 'w.owner', 'w.team_id', 'w.conversation_id', 'w.seq', sql.lit<string>(WalkPart.HEAD).as('part')])
    .where('w.rank', '<=', perOwner);
  // Each row says what it is (`WalkPart`, as the walk by owner's rows): a read asked ahead keeps
  // each owner's first heads (`trimCandidates`) and every woken wait.
  return heads.unionAll(wokenJobs(db, now).select(sql.lit<string>(WalkPart.WOKEN).as('part')));
}

/** Each dialect's statement, compiled once (`compiled-statement.ts`): its building cost more than its run. */
const CANDIDATES = {
  sqlite: new CompiledStatement(2, sqliteCandidates),
  postgres: new CompiledStatement(2, postgresCandidates),
};

/**
 * The admission's candidates (see {@link sqliteCandidates}), in queue order.
 *
 * @param walk on SQLite, how many of an owner's waiting jobs the walk by owner looks at before it
 * gives way to the scan by conversation (`admission-owner-walk.ts`). Tests name it (small) to
 * have every read walk first; left out, the read follows the last one's shape ({@link ReadShape}).
 */
export async function readCandidates(
  scope: WriteScope,
  perOwner: number,
  walk?: number,
): Promise<AdmissionCandidate[]> {
  const rows = scope.dialect === 'sqlite' ? await sqliteRows(scope, perOwner, walk) : await scanned(scope, perOwner);
  return inQueueOrder(rows).map(toCandidate);
}

/**
 * PostgreSQL: the candidates read at once, with up to `upTo` heads per owner, before the caller
 * knows how many it needs (the active jobs per owner, asked in the same round trip): it follows the
 * planning lock's read on the wire, so it runs once that lock is held and reads what a read after
 * it would. {@link trimCandidates} then keeps what {@link readCandidates} would have read.
 */
export function readCandidatesAhead(scope: WriteScope, upTo: number): Promise<readonly CandidateRow[]> {
  const read = scanned(scope, upTo);
  // Told where it is awaited; never awaited when the planning lock was not free or its read failed.
  read.catch(() => undefined);
  return read;
}

/**
 * The candidates of rows read ahead ({@link readCandidatesAhead}) as {@link readCandidates} reads
 * them with `perOwner`: each owner's first `perOwner` heads in queue order (the statement ranks an
 * owner's heads by seq), and every woken wait.
 */
export function trimCandidates(rows: readonly CandidateRow[], perOwner: number): AdmissionCandidate[] {
  const kept = new Map<string, number>();
  return inQueueOrder(rows)
    .filter((row) => {
      if ((row as { part?: unknown }).part !== WalkPart.HEAD) return true;
      const n = kept.get(row.owner) ?? 0;
      kept.set(row.owner, n + 1);
      return n < perOwner;
    })
    .map(toCandidate);
}

/** Candidate rows in queue order (a copy). */
function inQueueOrder(rows: readonly CandidateRow[]): CandidateRow[] {
  return [...rows].sort((a, b) => Number(a.seq) - Number(b.seq));
}

/** A candidate row as the planner takes it. */
function toCandidate(row: CandidateRow): AdmissionCandidate {
  return {
    jobId: asJobId(row.id),
    owner: asOwnerId(row.owner),
    teamId: asTeamId(row.team_id),
    conversationId: asConversationId(row.conversation_id),
    seq: Number(row.seq),
  };
}

/** The candidates by the scan by conversation ({@link sqliteCandidates}, {@link postgresCandidates}). */
function scanned(scope: WriteScope, perOwner: number) {
  return CANDIDATES[scope.dialect].rows(scope.trx, scope.now, perOwner);
}

/** A candidate's row (every column set). */
export type CandidateRow = Awaited<ReturnType<typeof scanned>>[number];

/**
 * From this many owners with heads on, a read whose owners have fewer than {@link HEADS_PER_OWNER_TO_WALK}
 * heads each on average makes the next read scan by conversation.
 */
export const OWNERS_TO_SCAN = 32;
/** Heads per owner (on average) from which the walk by owner pays for its owners. */
export const HEADS_PER_OWNER_TO_WALK = 2;

/**
 * How SQLite's next candidate read goes, per database (its dialect adapter): by owner unless the
 * last read saw many owners with about one head each (decision 0249).
 *
 * @remarks Each owner costs the walk a few seeks and a subquery of its own, and the scan a seek per
 * conversation: with hundreds of owners of one conversation each, the walk took 15–60 % longer than
 * the scan, and with owners of many conversations the scan up to 5× longer than the walk. Both give
 * the same answer; the last read's heads and owners tell which shape the backlog has now.
 */
type ReadShape = 'walk' | 'scan';
const nextRead = new WeakMap<object, ReadShape>();

/** True when `rows` (one head per row) come from many owners with few heads each. */
function fewHeadsPerOwner(rows: readonly { readonly owner: string }[]): boolean {
  const owners = new Set(rows.map((row) => row.owner)).size;
  return owners >= OWNERS_TO_SCAN && rows.length < HEADS_PER_OWNER_TO_WALK * owners;
}

/**
 * SQLite's candidates: by the shape the last read chose, or walked first when `walk` is named. A
 * read asking for fewer than {@link HEADS_PER_OWNER_TO_WALK} heads per owner (every slot taken)
 * cannot tell the shapes apart, and leaves the choice as it was.
 */
async function sqliteRows(scope: WriteScope, perOwner: number, walk: number | undefined): Promise<CandidateRow[]> {
  const key = scope.trx.getExecutor().adapter;
  const telling = perOwner >= HEADS_PER_OWNER_TO_WALK;
  if (walk === undefined && nextRead.get(key) === 'scan') {
    const rows = await scanned(scope, perOwner);
    // Its rows hold the woken waits too: rare, and they only make a walk likelier.
    if (telling && !fewHeadsPerOwner(rows)) nextRead.set(key, 'walk');
    return rows;
  }
  const { rows, heads } = await walkedOrScanned(scope, perOwner, walk ?? perOwner + OWNER_WALK_EXTRA_ROWS);
  if (telling) nextRead.set(key, fewHeadsPerOwner(heads) ? 'scan' : 'walk');
  return rows;
}

/**
 * SQLite's candidates by owner (decision 0249), or by conversation when an owner's walk was cut
 * before it found `perOwner` heads: the heads past the cut are then unknown, and the scan finds them.
 */
async function walkedOrScanned(
  scope: WriteScope,
  perOwner: number,
  walk: number,
): Promise<{ rows: CandidateRow[]; heads: readonly WalkRow[] }> {
  const rows = await readOwnerWalk(scope, perOwner, Math.max(1, walk));
  const heads = rows.filter((row) => row.part === WalkPart.HEAD);
  const kept = new Map<string, number>();
  for (const row of heads) kept.set(row.owner, (kept.get(row.owner) ?? 0) + 1);
  const short = rows.some((row) => row.part === WalkPart.CUT && (kept.get(row.owner) ?? 0) < perOwner);
  if (short) return { rows: await scanned(scope, perOwner), heads };
  return { rows: rows.filter((row): row is WalkRow & CandidateRow => row.part !== WalkPart.CUT), heads };
}
