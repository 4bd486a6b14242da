import { type AdmissionCandidate, asConversationId, asJobId, asOwnerId, asTeamId, TeamStatus } from '@agent-teams/core';
import { type Expression, type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { OWNER_WALK_EXTRA_ROWS, readOwnerWalk, WalkPart, type WalkRow } from './admission-owner-walk.js';
import { wokenJobs } from './change-waits.js';
import { CompiledStatement } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { UNFINISHED } from './job-reads.js';
import { SLOT_WAITING_PHASE_LITERALS } from './literal-phase.js';
import { postgresCandidates } from './pg-candidate-scan.js';
import { notePostgresRead, postgresWalks, readPostgresOwnerWalk } from './pg-owner-walk.js';
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
 * it would. {@link candidatesReadAhead} then keeps what {@link readCandidates} would have read.
 * By owner unless the backlog's shape says otherwise (`pg-owner-walk.ts`, decision 0260); `walk`
 * (tests) cuts every owner's walk at that many jobs.
 */
export function readCandidatesAhead(scope: WriteScope, upTo: number, walk?: number): Promise<readonly CandidateRow[]> {
  const read: Promise<readonly CandidateRow[]> =
    walk !== undefined || postgresWalks(scope)
      ? readPostgresOwnerWalk(scope.trx, scope.now, upTo, walk ?? upTo + OWNER_WALK_EXTRA_ROWS)
      : scanned(scope, upTo);
  // Told where it is awaited; never awaited when the planning lock was not free or its read failed.
  read.catch(() => undefined);
  return read;
}

/**
 * The candidates {@link readCandidates} would read with `perOwner`, from rows read ahead
 * ({@link readCandidatesAhead}): read again by conversation when an owner's walk was cut before it
 * found `perOwner` heads (the heads past the cut are unknown), then trimmed ({@link trimCandidates}).
 */
export async function candidatesReadAhead(
  scope: WriteScope,
  ahead: Promise<readonly CandidateRow[]>,
  perOwner: number,
): Promise<AdmissionCandidate[]> {
  const rows = await ahead;
  const { heads, short } = cutShort(rows, perOwner);
  // A read asking for fewer than 2 heads per owner cannot tell the backlog's shapes apart.
  notePostgresRead(scope, short || (perOwner >= HEADS_PER_OWNER_TO_WALK && fewHeadsPerOwner(heads)));
  return trimCandidates(short ? await scanned(scope, perOwner) : rows, perOwner);
}

/**
 * The candidates of rows read ahead as {@link readCandidates} reads them with `perOwner`: each
 * owner's first `perOwner` heads in queue order (the statements rank an owner's heads by seq), and
 * every woken wait; a walk's `cut` rows are left out ({@link candidatesReadAhead} acts on them).
 */
export function trimCandidates(rows: readonly CandidateRow[], perOwner: number): AdmissionCandidate[] {
  const kept = new Map<string, number>();
  return inQueueOrder(rows)
    .filter((row) => {
      const part = partOf(row);
      if (part === WalkPart.CUT) return false;
      if (part !== WalkPart.HEAD) return true;
      const n = kept.get(row.owner) ?? 0;
      kept.set(row.owner, n + 1);
      return n < perOwner;
    })
    .map(toCandidate);
}

/**
 * A walk's heads, and whether it was cut short: some owner named cut (`WalkPart.CUT`) kept fewer
 * than `perOwner` heads, so its heads past the cut are unknown and the scan must read them.
 */
function cutShort<R extends { readonly owner: string }>(
  rows: readonly R[],
  perOwner: number,
): { heads: R[]; short: boolean } {
  const heads = rows.filter((row) => partOf(row) === WalkPart.HEAD);
  const kept = new Map<string, number>();
  for (const row of heads) kept.set(row.owner, (kept.get(row.owner) ?? 0) + 1);
  const short = rows.some((row) => partOf(row) === WalkPart.CUT && (kept.get(row.owner) ?? 0) < perOwner);
  return { heads, short };
}

/** What a row read ahead is (`WalkPart`): every statement read ahead names it. */
const partOf = (row: object): unknown => (row as { part?: unknown }).part;

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
  const { heads, short } = cutShort(rows, perOwner);
  if (short) return { rows: await scanned(scope, perOwner), heads };
  return { rows: rows.filter((row): row is WalkRow & CandidateRow => row.part !== WalkPart.CUT), heads };
}
