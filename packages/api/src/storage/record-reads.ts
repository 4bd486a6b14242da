import type { RecordId, RecordMessage, TeamEvent, TeamId } from '@agent-teams/core';
import type { Kysely, Selectable } from 'kysely';
import { CompiledListStatement, CompiledShapes, ID_LIST_PLANNED } from './compiled-statement.js';
import type { Database, RecordMessagesTable } from './database-types.js';
import { LIMIT_SHAPES, literalLimit } from './literal-limit.js';
import { toEvent, toRecord } from './row-mappers.js';
import { inInputOrder } from './team-reads.js';

/** A team's newest record messages, newest first; compiled once per limit (`literal-limit.ts`). */
const RECENT_RECORDS = new CompiledShapes<Selectable<RecordMessagesTable>>(LIMIT_SHAPES);

/** The newest `limit` record messages of a team, oldest first. */
export async function recentRecords(db: Kysely<Database>, teamId: TeamId, limit: number): Promise<RecordMessage[]> {
  if (limit <= 0) return [];
  const { rows } = await RECENT_RECORDS.execute(
    db,
    String(limit),
    (target, [team]) =>
      target
        .selectFrom('record_messages')
        .selectAll()
        .where('team_id', '=', team as string)
        .orderBy('seq', 'desc')
        .limit(literalLimit(limit)),
    [teamId],
  );
  return rows.map(toRecord).reverse();
}

/** Rows of `record_messages` by id, the statement compiled once per list length (`compiled-statement.ts`). */
const RECORDS_BY_ID = new CompiledListStatement(ID_LIST_PLANNED, (db, ids) =>
  db.selectFrom('record_messages').selectAll().where('id', 'in', ids),
);

/** Record messages by id, in the order asked; missing (or pruned) ids skipped. */
export async function findRecords(db: Kysely<Database>, recordIds: readonly RecordId[]): Promise<RecordMessage[]> {
  if (recordIds.length === 0) return [];
  const rows = await RECORDS_BY_ID.rows(db, [...new Set(recordIds)]);
  return inInputOrder(recordIds, rows.map(toRecord), (record) => record.id);
}

/**
 * Retained events of a team after `afterSeq`, in seq order, at most `limit`.
 *
 * @remarks The limit is written into the text (`literalLimit`), so the read is not re-planned at
 * every run (decision 0231): its callers pass a few fixed limits (one event, the live feed's 100,
 * a wake's 108; the core caps any limit at 500), not a page size a person picks.
 */
export async function readEvents(
  db: Kysely<Database>,
  teamId: TeamId,
  afterSeq: number,
  limit: number,
): Promise<TeamEvent[]> {
  if (limit <= 0) return [];
  const rows = await db
    .selectFrom('team_events')
    .innerJoin('teams', 'teams.id', 'team_events.team_id')
    .selectAll('team_events')
    .select('teams.owner')
    .where('team_events.team_id', '=', teamId)
    .where('team_events.seq', '>', afterSeq)
    .orderBy('team_events.seq')
    .limit(literalLimit(limit))
    .execute();
  return rows.map(toEvent);
}
