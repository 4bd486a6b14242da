import type { RecordId, RecordMessage, TeamEvent, TeamId } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from './database-types.js';
import { toEvent, toRecord } from './row-mappers.js';
import { inInputOrder } from './team-reads.js';

/** The newest `limit` record messages of a team, oldest first. */
export async function recentRecords(db: Kysely<Database>, teamId: TeamId, limit: number): Promise<RecordMessage[]> {
  if (limit <= 0) return [];
  const rows = await db
    .selectFrom('record_messages')
    .selectAll()
    .where('team_id', '=', teamId)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toRecord).reverse();
}

/** Record messages by id, in the order asked; missing (or pruned) ids skipped. */
export async function findRecords(db: Kysely<Database>, recordIds: readonly RecordId[]): Promise<RecordMessage[]> {
  if (recordIds.length === 0) return [];
  const rows = await db
    .selectFrom('record_messages')
    .selectAll()
    .where('id', 'in', [...new Set(recordIds)])
    .execute();
  return inInputOrder(recordIds, rows.map(toRecord), (record) => record.id);
}

/** Retained events of a team after `afterSeq`, in seq order, at most `limit`. */
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
    .limit(limit)
    .execute();
  return rows.map(toEvent);
}
