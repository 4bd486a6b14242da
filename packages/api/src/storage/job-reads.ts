import {
  type ConversationId,
  type Job,
  type JobFilter,
  type JobId,
  JobKind,
  JobPhase,
  JobStatus,
  type JobView,
  type OwnerId,
  type SeqPage,
  type SeqPageRequest,
  type TeamId,
} from '@agent-teams/core';
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { CompiledListStatement, CompiledStatement, ID_LIST_PLANNED } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { JOB_VIEW_COLUMNS, toJobView } from './job-view-rows.js';
import { literalKind } from './literal-kind.js';
import { literalLimit } from './literal-limit.js';
import { ACTIVE_PHASE_LITERALS, literalPhase, literalPhases } from './literal-phase.js';
import { toJob } from './row-mappers.js';
import { inInputOrder } from './team-reads.js';

/**
 * `unfinished = 1` as a literal, not a bound parameter: a partial index applies only where the
 * query's WHERE implies the index's. With a `?` compared to a column that a partial index's WHERE
 * tests for equality, SQLite re-plans the statement at every run for the value bound (measured:
 * a count of unfinished jobs 5.0 µs with the literal, 10.8 µs bound; decision 0231), and
 * PostgreSQL's generic plans cannot use the index at all.
 */
export const UNFINISHED = sql.lit(1);

type JobQuery = SelectQueryBuilder<Database, 'jobs', object>;

/** The owner's job, or null. */
export async function findJob(db: Kysely<Database>, owner: OwnerId, jobId: JobId): Promise<Job | null> {
  const row = await db
    .selectFrom('jobs')
    .selectAll()
    .where('id', '=', jobId)
    .where('owner', '=', owner)
    .executeTakeFirst();
  return row === undefined ? null : toJob(row);
}

/** One `jobs` row by id; compiled once (`compiled-statement.ts`). */
export const JOB_BY_ID = new CompiledStatement(1, (db, jobId: string) =>
  db.selectFrom('jobs').selectAll().where('id', '=', jobId),
);

/** Rows of `jobs` by id, the statement compiled once per list length (`compiled-statement.ts`). */
const JOBS_BY_ID = new CompiledListStatement(ID_LIST_PLANNED, (db, ids) =>
  db.selectFrom('jobs').selectAll().where('id', 'in', ids),
);

/** Rows of `jobs` by id without their frozen inputs ({@link JOB_VIEW_COLUMNS}), compiled once per list length. */
const JOB_VIEWS_BY_ID = new CompiledListStatement(ID_LIST_PLANNED, (db, ids) =>
  db.selectFrom('jobs').select(JOB_VIEW_COLUMNS).where('id', 'in', ids),
);

/** Jobs by id, any owner, without their frozen inputs, in the order asked; missing ids skipped. */
export async function findJobViews(db: Kysely<Database>, jobIds: readonly JobId[]): Promise<JobView[]> {
  if (jobIds.length === 0) return [];
  const rows = await JOB_VIEWS_BY_ID.rows(db, [...new Set(jobIds)]);
  return inInputOrder(jobIds, rows.map(toJobView), (job) => job.id);
}

/** Jobs by id, any owner, in the order asked; missing ids skipped. */
export async function findJobs(db: Kysely<Database>, jobIds: readonly JobId[]): Promise<Job[]> {
  if (jobIds.length === 0) return [];
  const rows = await JOBS_BY_ID.rows(db, [...new Set(jobIds)]);
  return inInputOrder(jobIds, rows.map(toJob), (job) => job.id);
}

/**
 * The phases behind public statuses (QUEUED covers ADMITTING: its run is not acknowledged;
 * RESUMING covers ANSWERED: the answer waits for a slot).
 */
function phasesOf(statuses: readonly JobStatus[]): JobPhase[] {
  return statuses.flatMap((status) => {
    if (status === JobStatus.QUEUED) return [JobPhase.QUEUED, JobPhase.ADMITTING];
    if (status === JobStatus.RESUMING) return [JobPhase.RESUMING, JobPhase.ANSWERED];
    return [status];
  });
}

/**
 * The phases of a caller's statuses for `phase IN (…)`: one phase as a literal, as every other
 * statement writes it (decision 0235); two or more bound, deduplicated and sorted. SQLite does not
 * compare a list of bound values with the inbox's partial index (no re-plan at each run: counted,
 * docs/benchmarks.md, twenty-second pass), and a caller's choice of statuses then makes one
 * statement text per number of phases, not one per set (up to 511 sets, each its own prepared
 * statement on PostgreSQL).
 */
function phaseFilter(statuses: readonly JobStatus[]) {
  const phases = [...new Set(phasesOf(statuses))].sort();
  return phases.length === 1 ? literalPhases(phases) : phases;
}

/**
 * A page of jobs with the filtered total. The page selects {@link JOB_VIEW_COLUMNS}, never the
 * frozen input: no page shows it, and a page of 100 finished jobs with full team contexts read about
 * 1.3 MB of it and parsed most of it (decision 0246; docs/benchmarks.md, `job-pages`).
 */
async function pageWithTotal(
  filtered: JobQuery,
  page: SeqPageRequest,
): Promise<SeqPage<JobView> & { readonly totalCount: number }> {
  const total = await filtered.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  const anchored = page.afterSeq === null ? filtered : filtered.where('seq', '>', page.afterSeq);
  const rows = await anchored
    .select(JOB_VIEW_COLUMNS)
    .orderBy('seq')
    // Bound: a caller's page size (1–100); in the text it would add a statement per size to a
    // statement cache of 500 texts and could evict a turn's (decision 0231).
    .limit(page.first + 1)
    .execute();
  return {
    items: rows.slice(0, page.first).map(toJobView),
    hasNextPage: rows.length > page.first,
    totalCount: Number(total.n),
  };
}

/** A team's jobs in creation order, filtered, with the filtered total (none for an empty list of statuses). */
export function listJobs(
  db: Kysely<Database>,
  teamId: TeamId,
  filter: JobFilter,
  page: SeqPageRequest,
): Promise<SeqPage<JobView> & { readonly totalCount: number }> {
  // Nothing to ask the database: `phase IN ()` is no valid SQL, and a constant false would add statement texts.
  if (filter.statuses?.length === 0) return Promise.resolve({ items: [], hasNextPage: false, totalCount: 0 });
  let query: JobQuery = db.selectFrom('jobs').where('team_id', '=', teamId);
  // A literal (one of four kinds): bound, it would re-plan the count at every run (`literal-kind.ts`).
  if (filter.kind) query = query.where('kind', '=', literalKind(filter.kind));
  if (filter.memberId) query = query.where('member_id', '=', filter.memberId);
  if (filter.statuses) query = query.where('phase', 'in', phaseFilter(filter.statuses));
  return pageWithTotal(query, page);
}

/** An owner's jobs waiting for a person (the partial `jobs_waiting_input_idx`, migration 0015). */
export function waitingJobs(db: Kysely<Database>, owner: OwnerId): JobQuery {
  return db.selectFrom('jobs').where('owner', '=', owner).where('phase', '=', literalPhase(JobPhase.WAITING_INPUT));
}

/** Jobs waiting for a person, of one owner, oldest first (the inbox). */
export function listWaitingJobs(
  db: Kysely<Database>,
  owner: OwnerId,
  page: SeqPageRequest,
): Promise<SeqPage<JobView> & { readonly totalCount: number }> {
  return pageWithTotal(waitingJobs(db, owner), page);
}

/** Unfinished jobs holding a slot, in creation order. */
export async function listActiveJobs(db: Kysely<Database>): Promise<Job[]> {
  const rows = await db
    .selectFrom('jobs')
    .selectAll()
    .where('unfinished', '=', UNFINISHED)
    .where('phase', 'in', ACTIVE_PHASE_LITERALS)
    .orderBy('seq')
    .execute();
  return rows.map(toJob);
}

/** Numbers of REQUEST and RECEIPT jobs of a team. */
export async function countJobs(db: Kysely<Database>, teamId: TeamId): Promise<{ requests: number; receipts: number }> {
  const rows = await db
    .selectFrom('jobs')
    .select(['kind', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('team_id', '=', teamId)
    .groupBy('kind')
    .execute();
  const count = (kind: JobKind) => Number(rows.find((row) => row.kind === kind)?.n ?? 0);
  return { requests: count(JobKind.REQUEST), receipts: count(JobKind.RECEIPT) };
}

/**
 * The phase of each conversation's last finished job (latest `updated_at`, then `seq`), one
 * column `p<i>` per conversation in one row: each a seek of `jobs_finished_conversation_idx`
 * (decision 0247). The window over every finished job it replaced scanned the whole table.
 */
export function lastFinishedPhases(db: Kysely<Database>, ids: readonly string[]) {
  return db.selectNoFrom((eb) =>
    ids.map((id, i) =>
      eb
        .selectFrom('jobs')
        .select('phase')
        .where('unfinished', '=', sql.lit(0))
        .where('conversation_id', '=', id)
        .orderBy('updated_at', 'desc')
        .orderBy('seq', 'desc')
        .limit(literalLimit(1))
        .as(`p${i}`),
    ),
  );
}

/** {@link lastFinishedPhases}, compiled once per number of conversations (`compiled-statement.ts`). */
const LAST_FINISHED = new CompiledListStatement(ID_LIST_PLANNED, lastFinishedPhases);

/**
 * Per conversation: the phase of its head (oldest unfinished) job and of its most recently
 * finished job ("most recent" = latest `updated_at`, then highest seq: a finished job never
 * changes again, so its `updated_at` is the moment it finished).
 */
export async function conversationStates(
  db: Kysely<Database>,
  conversationIds: readonly ConversationId[],
): Promise<Map<ConversationId, { head: JobPhase | null; lastFinished: JobPhase | null }>> {
  const states = new Map(
    conversationIds.map((id) => [id, { head: null as JobPhase | null, lastFinished: null as JobPhase | null }]),
  );
  if (conversationIds.length === 0) return states;
  const ids = [...new Set(conversationIds)];
  const unfinished = await db
    .selectFrom('jobs')
    .select(['conversation_id', 'phase'])
    .where('unfinished', '=', UNFINISHED)
    .where('conversation_id', 'in', ids)
    .orderBy('seq')
    .execute();
  for (const row of unfinished) {
    const state = states.get(row.conversation_id as ConversationId);
    if (state !== undefined && state.head === null) state.head = row.phase as JobPhase;
  }
  // In chunks of a compiled statement's size: each conversation is a column of the one row, and
  // both databases bound a row's columns (PostgreSQL 1,664, SQLite 2,000).
  for (let from = 0; from < ids.length; from += ID_LIST_PLANNED) {
    const chunk = ids.slice(from, from + ID_LIST_PLANNED);
    const [last] = await LAST_FINISHED.rows(db, chunk);
    chunk.forEach((id, i) => {
      const phase = (last as Record<string, string | null> | undefined)?.[`p${i}`] ?? null;
      const state = states.get(id);
      if (state !== undefined && phase !== null) state.lastFinished = phase as JobPhase;
    });
  }
  return states;
}
