import {
  type Job,
  type NewestFirstPage,
  type NewestFirstPageRequest,
  type RecordMessage,
  TERMINAL_PHASES,
  type TeamId,
  type TeamReadFilter,
} from '@agent-teams/core';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { Database } from './database-types.js';
import { REQUEST_KIND } from './literal-kind.js';
import { literalPhases } from './literal-phase.js';
import type { DatabaseDialect } from './open-database.js';
import { toJob, toRecord } from './row-mappers.js';

/**
 * A literal substring test on a folded column: `instr` (SQLite) or `strpos` (PostgreSQL), never
 * LIKE, so `%`, `_` and backslashes in a query are plain characters.
 */
function contains(dialect: DatabaseDialect, column: string, folded: string) {
  const fn = dialect === 'sqlite' ? sql`instr` : sql`strpos`;
  return sql<boolean>`${fn}(${sql.ref(column)}, ${folded}) > 0`;
}

/** True when an item with seq `beforeSeq` is still in the table for the team. */
async function anchorExists(
  db: Kysely<Database>,
  table: 'record_messages' | 'jobs',
  teamId: TeamId,
  beforeSeq: number | null,
): Promise<boolean> {
  if (beforeSeq === null) return true;
  const row = await db
    .selectFrom(table)
    .select('seq')
    .where('team_id', '=', teamId)
    .where('seq', '=', beforeSeq)
    .executeTakeFirst();
  return row !== undefined;
}

/** A team's retained record messages, newest first, filtered before paging (see the port). */
export async function pageRecords(
  db: Kysely<Database>,
  dialect: DatabaseDialect,
  teamId: TeamId,
  filter: TeamReadFilter,
  page: NewestFirstPageRequest,
): Promise<NewestFirstPage<RecordMessage>> {
  if (!(await anchorExists(db, 'record_messages', teamId, page.beforeSeq))) {
    return { items: [], hasMore: false, anchorFound: false };
  }
  let query = db.selectFrom('record_messages').selectAll().where('team_id', '=', teamId);
  if (page.beforeSeq !== null) query = query.where('seq', '<', page.beforeSeq);
  if (filter.memberId !== null) {
    const memberId = filter.memberId;
    query = query.where((eb) => eb.or([eb('member_id', '=', memberId), eb('from_member_id', '=', memberId)]));
  }
  if (filter.jobId !== null) query = query.where('job_id', '=', filter.jobId);
  if (filter.query !== null) query = query.where(contains(dialect, 'text_folded', filter.query));
  const rows = await query
    .orderBy('seq', 'desc')
    // Bound: the member's page size (1–20) times the filters' shapes would add hundreds of texts
    // to a statement cache of 500 and could evict a turn's (decision 0231).
    .limit(page.limit + 1)
    .execute();
  return { items: rows.slice(0, page.limit).map(toRecord), hasMore: rows.length > page.limit, anchorFound: true };
}

/** A team's finished requests, newest first, filtered before paging (see the port). */
export async function searchResults(
  db: Kysely<Database>,
  dialect: DatabaseDialect,
  teamId: TeamId,
  filter: TeamReadFilter,
  page: NewestFirstPageRequest,
): Promise<NewestFirstPage<Job>> {
  if (!(await anchorExists(db, 'jobs', teamId, page.beforeSeq))) {
    return { items: [], hasMore: false, anchorFound: false };
  }
  let query = db
    .selectFrom('jobs')
    .selectAll()
    .where('team_id', '=', teamId)
    // A literal: a bound kind is one cause of a re-plan at every run (`literal-kind.ts`); the
    // bound limit below, the other, stays.
    .where('kind', '=', REQUEST_KIND)
    .where('phase', 'in', literalPhases(TERMINAL_PHASES));
  if (page.beforeSeq !== null) query = query.where('seq', '<', page.beforeSeq);
  if (filter.memberId !== null) {
    const memberId = filter.memberId;
    query = query.where((eb) => eb.or([eb('member_id', '=', memberId), eb('requester_member_id', '=', memberId)]));
  }
  if (filter.jobId !== null) {
    const jobId = filter.jobId;
    query = query.where((eb: ExpressionBuilder<Database, 'jobs'>) =>
      eb.or([eb('id', '=', jobId), eb('parent_id', '=', jobId), eb('root_id', '=', jobId)]),
    );
  }
  if (filter.query !== null) {
    const folded = filter.query;
    query = query.where((eb) =>
      eb.or([contains(dialect, 'text_folded', folded), contains(dialect, 'result_folded', folded)]),
    );
  }
  const rows = await query
    .orderBy('seq', 'desc')
    // Bound: the member's page size (1–20) times the filters' shapes would add hundreds of texts
    // to a statement cache of 500 and could evict a turn's (decision 0231).
    .limit(page.limit + 1)
    .execute();
  return { items: rows.slice(0, page.limit).map(toJob), hasMore: rows.length > page.limit, anchorFound: true };
}
