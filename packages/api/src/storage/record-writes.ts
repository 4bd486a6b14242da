import { foldSearchText, Limits, type RecordMessage, TeamEventKind } from '@agent-teams/core';
import type { ExpressionBuilder } from 'kysely';
import { CompiledStatement } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { writeThenCheck } from './pg-held-connection.js';
import type { WriteScope } from './write-transaction.js';

/** A shared-record message to append (the store numbers and stamps it). */
export type NewRecordMessage = Omit<RecordMessage, 'seq' | 'createdAt'>;

/** UTF-8 length of one code point (a lone surrogate is written as U+FFFD, 3 bytes). */
function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  return codePoint < 0x10000 ? 3 : 4;
}

/**
 * Cuts text to at most `maxBytes` of UTF-8 at a code-point boundary.
 *
 * @remarks A record message holds at most 6,000 bytes while a task may hold 8,000, so the
 * request's announcement can be cut; the job keeps the full text.
 */
export function cutUtf8(text: string, maxBytes: number): { text: string; truncated: boolean } {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8Length(char.codePointAt(0) ?? 0);
    if (bytes + size > maxBytes) return { text: text.slice(0, end), truncated: true };
    bytes += size;
    end += char.length;
  }
  return { text, truncated: false };
}

/** The columns of one record message, from its values. */
function recordRow(
  id: string,
  teamId: string,
  kind: string,
  jobId: string | null,
  memberId: string | null,
  fromMemberId: string | null,
  text: string,
  folded: string,
  truncated: number,
  now: string,
) {
  return {
    id,
    team_id: teamId,
    kind,
    job_id: jobId,
    member_id: memberId,
    from_member_id: fromMemberId,
    text,
    text_folded: folded,
    truncated,
    created_at: now,
  };
}

/** The values of {@link recordRow}, in its order. */
type RecordValues = Parameters<typeof recordRow>;

/** One record message, its seq given by the table. */
const INSERT_RECORD = new CompiledStatement(10, (db, ...values: RecordValues) =>
  db.insertInto('record_messages').values(recordRow(...values)),
);

/**
 * The seq of the team's message with `newer` messages after it: every message at or below it
 * goes. NULL (a no-op) while the team has no more than `newer` messages.
 */
function trimBound(eb: Pick<ExpressionBuilder<Database, never>, 'selectFrom'>, teamId: string, newer: number) {
  return eb
    .selectFrom('record_messages')
    .select('seq')
    .where('team_id', '=', teamId)
    .orderBy('seq', 'desc')
    .limit(1)
    .offset(newer);
}

/** Everything at or below the team's 101st newest seq goes. */
const TRIM_RECORD = new CompiledStatement(1, (db, teamId: string) =>
  db
    .deleteFrom('record_messages')
    .where('team_id', '=', teamId)
    .where('seq', '<=', (eb) => trimBound(eb, teamId, Limits.recordRetained)),
);

/**
 * PostgreSQL: the insert and the trim in one statement, one round trip instead of two. The
 * `DELETE` reads the table as it was before the insert (one snapshot for the whole statement), so
 * it keeps the newest `recordRetained - 1` of the earlier messages, and the new one makes
 * `recordRetained`: what the two statements keep.
 */
const INSERT_AND_TRIM_RECORD = new CompiledStatement(10, (db, ...values: RecordValues) => {
  const teamId = values[1];
  return (
    db
      .with('appended', (db) =>
        db
          .insertInto('record_messages')
          .values(recordRow(...values))
          .returning('seq'),
      )
      // A data-modifying WITH runs whether or not the statement reads it.
      .with('trimmed', (db) =>
        db
          .deleteFrom('record_messages')
          .where('team_id', '=', teamId)
          .where('seq', '<=', (eb) => trimBound(eb, teamId, Limits.recordRetained - 1)),
      )
      .selectFrom('appended')
      .select('seq')
  );
});

/**
 * Appends a record message, keeps only the team's newest `Limits.recordRetained`, and logs
 * RECORD_APPENDED, all in the caller's transaction.
 */
export async function appendRecord(scope: WriteScope, record: NewRecordMessage): Promise<void> {
  const cut = cutUtf8(record.text, Limits.historyTextBytes);
  const truncated = record.truncated || cut.truncated ? 1 : 0;
  const values: RecordValues = [
    record.id,
    record.teamId,
    record.kind,
    record.jobId ?? null,
    record.memberId ?? null,
    record.fromMemberId ?? null,
    cut.text,
    foldSearchText(cut.text),
    truncated,
    scope.now,
  ];
  // As `toRecord` maps the row just written (a record message never changes).
  const note = (seq: unknown) => {
    if (seq === undefined) throw new Error(`[agent-teams/api] the insert of record ${record.id} reported no seq`);
    scope.events.rows.noteRecord({
      id: record.id,
      teamId: record.teamId,
      seq: Number(seq),
      kind: record.kind,
      jobId: record.jobId ?? null,
      memberId: record.memberId ?? null,
      fromMemberId: record.fromMemberId ?? null,
      text: cut.text,
      truncated: truncated === 1,
      createdAt: scope.now,
    });
  };
  if (scope.dialect === 'postgres') {
    // The team's newest records change now, though the seq is noted when the answer comes: on a
    // held connection the insert goes with the statements after it, the COMMIT too
    // (`pg-held-connection.ts`: an insert that succeeded returned its seq), and a read of the
    // records after it follows it on the wire.
    scope.events.rows.forgetRecentRecords(record.teamId);
    const sent = scope.events.rows.epoch();
    await writeThenCheck(
      scope.trx,
      () => INSERT_AND_TRIM_RECORD.rows(scope.trx, ...values),
      (rows) => scope.events.rows.noteAsOf(sent, () => note(rows[0]?.seq)),
      true,
    );
  } else {
    // `seq` is the table's INTEGER PRIMARY KEY: the statement's rowid.
    const seq = (await INSERT_RECORD.execute(scope.trx, ...values)).insertId;
    await TRIM_RECORD.execute(scope.trx, record.teamId);
    note(seq);
  }
  await scope.events.emit(record.teamId, TeamEventKind.RECORD_APPENDED, { recordId: record.id });
}
