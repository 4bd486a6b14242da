import type { TeamEventKind, TeamId } from '@agent-teams/core';
import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { TeamsTable } from './database-types.js';
import type { EventRetention } from './event-retention.js';
import { theRowsOf } from './pg-server-check.js';
import type { EventRefs } from './team-event-writer.js';

/** An event of one flush: its kind, and what it points at. */
export interface FlushedEvent {
  readonly kind: TeamEventKind;
  readonly refs: EventRefs;
}

/**
 * PostgreSQL: one flush of a team's events as one statement (a data-modifying `WITH`): the team's
 * row takes their seqs (and bumps its revision when `first`) and is answered whole, the events are
 * inserted, and, when the seqs pass a multiple of `retention.every`, the log's oldest events beyond
 * its retention are deleted. It fails unless the team's row was there (`pg-server-check.ts`).
 *
 * @remarks All in one statement, and checked on the server: the flush is the last write of most
 * transactions, and sent without waiting for its answer, its COMMIT goes in the same round trip
 * (`pg-held-connection.ts`). The prune's condition reads the new seq from the team's update, so
 * whether it runs is known only on the server; when it does not, its scan is never started (a
 * one-time filter). The delete sees the log as the statement began, so never the events it inserts.
 */
export function flushStatement(
  teamId: TeamId,
  events: readonly FlushedEvent[],
  first: boolean,
  now: string,
  retention: EventRetention,
): RawBuilder<Selectable<TeamsTable>> {
  const n = events.length;
  const rows = events.map(
    ({ kind, refs }, index) =>
      sql`(${index + 1}::int, ${kind}::text, ${refs.jobId ?? null}::text, ${refs.recordId ?? null}::text, ${refs.memberId ?? null}::text, ${refs.messageId ?? null}::text, ${refs.taskId ?? null}::text, ${refs.reason ?? null}::text)`,
  );
  return sql<Selectable<TeamsTable>>`
    with t as (
      update teams
      set last_event_seq = last_event_seq + ${n}::int, revision = revision + ${first ? 1 : 0}::int, updated_at = ${now}::text
      where id = ${teamId}::text
      returning *
    ), i as (
      insert into team_events (team_id, seq, kind, job_id, record_id, member_id, message_id, task_id, reason, created_at)
      select ${teamId}::text, t.last_event_seq - ${n}::int + v.i, v.kind, v.job_id, v.record_id, v.member_id, v.message_id, v.task_id, v.reason, ${now}::text
      from t cross join (values ${sql.join(rows)}) as v(i, kind, job_id, record_id, member_id, message_id, task_id, reason)
    ), pruned as (
      delete from team_events
      where team_id = ${teamId}::text
        and seq <= (select last_event_seq from t) - ${retention.keep}::int
        and created_at < ${retention.cutoff}::text
        and (select last_event_seq from t) / ${retention.every}::int > ((select last_event_seq from t) - ${n}::int) / ${retention.every}::int
    )
    ${theRowsOf('t', 'a team written by this transaction is gone')}`;
}
