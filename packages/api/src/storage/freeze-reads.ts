import { Limits, type Member, type RecordMessage, type TeamId, type TeamMessage } from '@agent-teams/core';
import { type AliasedRawBuilder, type Selectable, sql } from 'kysely';
import type { MembersTable, RecordMessagesTable, TeamMessagesTable } from './database-types.js';
import { toMessage } from './mailbox.js';
import { toMember, toRecord } from './row-mappers.js';
import type { WriteScope } from './write-transaction.js';

/**
 * What an admission's freeze reads besides the team and the job, asked of the PostgreSQL statement
 * that locks the team (decision 0250): the team's roster and its newest records when this
 * transaction has not read them yet (`WriteScope.roster`, `WriteScope.recentRecords`). The
 * member's undelivered messages always come with it.
 */
export interface FreezeReads {
  readonly roster: boolean;
  readonly records: boolean;
}

/** What the freeze's reads brought, mapped as the reads they replace map their rows. */
export interface FreezeReadRows {
  /** The member's undelivered messages, in send order (`undeliveredMessages`). */
  readonly mailbox?: TeamMessage[];
  /** The team's roster, in roster order (`listMembers`), when asked. */
  readonly roster?: Member[];
  /** The team's newest records, oldest first (`recentRecords`), when asked. */
  readonly records?: RecordMessage[];
}

/** The columns they come back in, as JSON arrays of whole rows (no table has these names). */
const ROSTER = 'freeze__roster';
const RECORDS = 'freeze__records';
const MAILBOX = 'freeze__mailbox';

/**
 * The freeze's reads as subqueries of a statement that reads the team's row as `team` (a table or
 * alias) and names the member by `member` (a column or a parameter). Each is `json_agg` of the
 * rows the read it replaces returns, in its order; `[]` when there are none.
 */
export function freezeReadColumns(
  reads: FreezeReads,
  team: string,
  member: ReturnType<typeof sql.ref> | ReturnType<typeof sql.val>,
): AliasedRawBuilder<unknown, string>[] {
  const teamId = sql.ref(`${team}.id`);
  const columns: AliasedRawBuilder<unknown, string>[] = [
    // `undeliveredMessages` (mailbox.ts): in send order.
    sql<unknown>`(select coalesce(json_agg(m order by d.message_seq), '[]'::json)
      from team_message_deliveries d join team_messages m on m.id = d.message_id
      where d.member_id = ${member} and d.job_id is null)`.as(MAILBOX),
  ];
  if (reads.roster) {
    // `listMembers` (team-reads.ts): in roster order.
    columns.push(
      sql<unknown>`(select coalesce(json_agg(m order by m.position), '[]'::json)
        from members m where m.team_id = ${teamId})`.as(ROSTER),
    );
  }
  if (reads.records) {
    // `recentRecords` (record-reads.ts): the newest, oldest first.
    columns.push(
      sql<unknown>`(select coalesce(json_agg(r order by r.seq), '[]'::json) from (select * from record_messages
        where team_id = ${teamId} order by seq desc limit ${sql.lit(Limits.contextMessages)}) r)`.as(RECORDS),
    );
  }
  return columns;
}

/**
 * Takes the freeze's columns out of a row read with {@link freezeReadColumns}: the row's other
 * columns, and what the reads brought, mapped.
 */
export function takeFreezeReads(row: object): { rest: Record<string, unknown>; reads: FreezeReadRows } {
  const { [MAILBOX]: mailbox, [ROSTER]: roster, [RECORDS]: records, ...rest } = row as Record<string, unknown>;
  return {
    rest,
    reads: {
      ...(mailbox === undefined ? {} : { mailbox: (mailbox as Selectable<TeamMessagesTable>[]).map(toMessage) }),
      ...(roster === undefined ? {} : { roster: (roster as Selectable<MembersTable>[]).map(toMember) }),
      ...(records === undefined ? {} : { records: (records as Selectable<RecordMessagesTable>[]).map(toRecord) }),
    },
  };
}

/** Each combination of {@link FreezeReads}, so a statement can be compiled once per shape. */
export const FREEZE_READ_SHAPES: readonly FreezeReads[] = [
  { roster: false, records: false },
  { roster: false, records: true },
  { roster: true, records: false },
  { roster: true, records: true },
];

/** The index of `reads` in {@link FREEZE_READ_SHAPES}. */
export function freezeReadShape(reads: FreezeReads): number {
  return (reads.roster ? 2 : 0) + (reads.records ? 1 : 0);
}

/**
 * What a freeze asks of the read that locks its team (PostgreSQL; `freeze-reads.ts`): the roster
 * and the records only when this transaction has not read them yet.
 */
export function freezeReadsFor(scope: WriteScope, teamId: TeamId): FreezeReads {
  const notes = scope.events.rows;
  return { roster: notes.roster(teamId) === undefined, records: notes.recentRecords(teamId) === undefined };
}

/** Notes the roster and records the lock's read brought, as `WriteScope` notes its own reads; the mailbox. */
export function keepFreezeReads(
  scope: WriteScope,
  teamId: TeamId,
  brought: FreezeReadRows,
): { mailbox?: TeamMessage[] } {
  if (brought.roster !== undefined) scope.events.rows.noteRoster(teamId, brought.roster);
  if (brought.records !== undefined) scope.events.rows.noteRecentRecords(teamId, brought.records);
  return brought.mailbox === undefined ? {} : { mailbox: brought.mailbox };
}
