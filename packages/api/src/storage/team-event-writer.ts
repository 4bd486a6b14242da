import {
  asOwnerId,
  type JobId,
  type MemberId,
  type MessageId,
  type OwnerId,
  type RecordId,
  type TaskId,
  type TeamEvent,
  type TeamEventKind,
  type TeamId,
} from '@agent-teams/core';
import type { Kysely, Selectable } from 'kysely';
import { CommittedRowNotes } from './committed-row-notes.js';
import { CompiledListStatement, CompiledStatement, ID_LIST_PLANNED } from './compiled-statement.js';
import type { Database, TeamsTable } from './database-types.js';
import { PRUNE_EVERY, passesPrunePoint, retentionAt } from './event-retention.js';
import type { DatabaseDialect } from './open-database.js';
import { flushStatement } from './pg-event-flush.js';
import { pgHeld, writeThenCheck } from './pg-held-connection.js';
import { toTeam, withoutSeq } from './row-mappers.js';

/** Takes `n` seqs of a team's log; bumps its revision too when `first` (one statement each way). */
function bumpTeam(first: boolean) {
  return new CompiledStatement(3, (db, n: number, now: string, teamId: string) =>
    db
      .updateTable('teams')
      .set((eb) => ({
        last_event_seq: eb('last_event_seq', '+', n),
        revision: first ? eb('revision', '+', 1) : eb.ref('revision'),
        updated_at: now,
      }))
      .where('id', '=', teamId)
      // The whole row: published with the commit (`CommittedRows.teams`), so the live views of
      // its events need not read the team back.
      .returningAll(),
  );
}
const BUMP_TEAM_FIRST = bumpTeam(true);
const BUMP_TEAM = bumpTeam(false);

/** The columns of one event row after `team_id` and before `created_at`, in `values` order. */
const EVENT_COLUMNS = 8;

/**
 * A transaction's events of one team in one multi-row insert, over `[teamId, now, ...row values]`:
 * a compiled statement per row count up to `ID_LIST_PLANNED` (`compiled-statement.ts`).
 */
const INSERT_EVENTS = new CompiledListStatement<never, unknown>(2 + ID_LIST_PLANNED * EVENT_COLUMNS, (db, params) =>
  insertEvents(db, params[0] as string, params[1] as string, params.slice(2)),
);

function insertEvents(db: Kysely<Database>, teamId: string, now: string, values: readonly unknown[]) {
  const rows = [];
  for (let at = 0; at < values.length; at += EVENT_COLUMNS) {
    const [seq, kind, jobId, recordId, memberId, messageId, taskId, reason] = values.slice(at, at + EVENT_COLUMNS);
    rows.push({
      team_id: teamId,
      seq: seq as number,
      kind: kind as string,
      job_id: jobId as string | null,
      record_id: recordId as string | null,
      member_id: memberId as string | null,
      message_id: messageId as string | null,
      task_id: taskId as string | null,
      reason: reason as string | null,
      created_at: now,
    });
  }
  return db.insertInto('team_events').values(rows);
}

/** The place of an event whose flush has not answered yet (PostgreSQL, `#writeInOneStatement`). */
const UNANSWERED = Object.freeze({}) as TeamEvent;

/** What an event points at. */
export interface EventRefs {
  readonly jobId?: JobId | null;
  readonly recordId?: RecordId | null;
  readonly memberId?: MemberId | null;
  readonly messageId?: MessageId | null;
  readonly taskId?: TaskId | null;
  /** Why the system changed the subject (TASK_CHANGED of a released claim). */
  readonly reason?: string | null;
}

/** An event emitted in the transaction and not yet written. */
interface PendingEvent {
  readonly teamId: TeamId;
  readonly kind: TeamEventKind;
  readonly refs: EventRefs;
}

/**
 * Appends a transaction's events to the team event logs and bumps each touched team's revision
 * once; collects the events to publish after commit.
 *
 * @remarks The per-team seq comes from `teams.last_event_seq`, incremented by an `UPDATE ...
 * RETURNING` in the same transaction (at {@link TeamEventWriter.flush}), so concurrent writers on
 * PostgreSQL serialize on the team row and seqs stay gap-free and strictly increasing. Old events are pruned whenever a team's seq
 * reaches a multiple of {@link PRUNE_EVERY}: one range delete on the primary key.
 */
export class TeamEventWriter {
  readonly #trx: Kysely<Database>;
  readonly #now: string;
  readonly #dialect: DatabaseDialect;
  readonly #touched = new Set<string>();
  readonly #emitted = new Set<string>();
  readonly #events: TeamEvent[] = [];
  readonly #pending: PendingEvent[] = [];
  /** The places of the flushes not answered yet ({@link mark}'s rollback drops those past its point). */
  readonly #unanswered = new Set<{ readonly at: number; dropped: boolean }>();
  /** The rows this transaction stored, published with its events (see {@link CommittedRowNotes}). */
  readonly rows = new CommittedRowNotes();

  constructor(trx: Kysely<Database>, now: string, dialect: DatabaseDialect = 'sqlite') {
    this.#trx = trx;
    this.#now = now;
    this.#dialect = dialect;
  }

  /** The events written so far (published by the caller after commit; see {@link flush}). */
  get events(): readonly TeamEvent[] {
    return this.#events;
  }

  /**
   * Appends one event to a team's log (written at {@link flush}); the same event (kind and
   * subject) twice in one transaction is logged once, since a subscriber re-reads the subject
   * either way.
   */
  async emit(teamId: TeamId, kind: TeamEventKind, refs: EventRefs = {}): Promise<void> {
    const key = [
      teamId,
      kind,
      refs.jobId ?? '',
      refs.recordId ?? '',
      refs.memberId ?? '',
      refs.messageId ?? '',
      refs.taskId ?? '',
    ].join('\u0000');
    if (this.#emitted.has(key)) return;
    this.#emitted.add(key);
    this.#pending.push({ teamId, kind, refs });
  }

  /**
   * Writes the pending events: per team, one `UPDATE ... RETURNING` that takes all their seqs and
   * bumps the revision (once per transaction), and one multi-row insert. The store calls it
   * before COMMIT, and before reading a team row it changed in the same transaction. Writing a
   * transaction's events together costs two statements per team instead of two per event.
   */
  async flush(): Promise<void> {
    if (this.#pending.length === 0) return;
    const pending = this.#pending.splice(0);
    const byTeam = new Map<TeamId, PendingEvent[]>();
    for (const entry of pending) {
      const list = byTeam.get(entry.teamId);
      if (list) list.push(entry);
      else byTeam.set(entry.teamId, [entry]);
    }
    for (const [teamId, entries] of byTeam) {
      const first = !this.#touched.has(teamId);
      this.#touched.add(teamId);
      if (this.#dialect === 'postgres') {
        await this.#writeInOneStatement(teamId, entries, first);
        continue;
      }
      const events = await this.#write(teamId, entries, first);
      const last = (events.at(-1) as TeamEvent).seq;
      if (passesPrunePoint(last, entries.length)) await this.#prune(teamId, last);
      this.#events.push(...events);
    }
  }

  /** SQLite: the team update (its seqs), then one multi-row insert. */
  async #write(teamId: TeamId, entries: readonly PendingEvent[], first: boolean): Promise<TeamEvent[]> {
    const [team] = await (first ? BUMP_TEAM_FIRST : BUMP_TEAM).rows(this.#trx, entries.length, this.#now, teamId);
    if (team === undefined) throw new Error(`[agent-teams/api] team ${teamId} is gone mid-transaction`);
    this.rows.noteTeam(withoutSeq(toTeam(team)));
    const events = this.#numbered(teamId, entries, asOwnerId(team.owner), Number(team.last_event_seq));
    const values = events.flatMap((event) => [
      event.seq,
      event.kind,
      event.jobId,
      event.recordId,
      event.memberId,
      event.messageId ?? null,
      event.taskId ?? null,
      event.reason ?? null,
    ]);
    await INSERT_EVENTS.rows(this.#trx, [teamId, this.#now, ...values]);
    return events;
  }

  /**
   * PostgreSQL: the update, the insert and the prune as one statement (`pg-event-flush.ts`), so a
   * transaction's events cost one round trip to the server instead of two or three. On a held
   * connection it is sent and left (`pg-held-connection.ts`): the server checks it, so the COMMIT
   * follows it on the wire, and its events take their places in {@link events} when it answers.
   */
  async #writeInOneStatement(teamId: TeamId, entries: readonly PendingEvent[], first: boolean): Promise<void> {
    const statement = flushStatement(teamId, entries, first, this.#now, retentionAt(this.#now));
    // Their places, kept in the order flushed whenever the answer comes (an `announce` may follow).
    const at = this.#events.length;
    const place = { at, dropped: false };
    const sent = this.rows.epoch();
    this.#unanswered.add(place);
    for (const _ of entries) this.#events.push(UNANSWERED);
    const fill = (found: readonly Selectable<TeamsTable>[]) => {
      const team = found[0];
      // Checked by the server too: the callers hold the team's row, gone only if deleted in this very transaction.
      if (team === undefined) throw new Error(`[agent-teams/api] team ${teamId} is gone mid-transaction`);
      // Rolled back to a savepoint meanwhile (`mark`): these events are gone with it.
      this.#unanswered.delete(place);
      if (place.dropped) return;
      this.rows.noteAsOf(sent, () => this.rows.noteTeam(withoutSeq(toTeam(team))));
      const events = this.#numbered(teamId, entries, asOwnerId(team.owner), Number(team.last_event_seq));
      this.#events.splice(at, events.length, ...events);
    };
    // Sent now on a held connection (in the order called), else through Kysely and awaited.
    const send = () => {
      const held = pgHeld(this.#trx);
      if (held === undefined) return statement.execute(this.#trx);
      const { sql, parameters } = statement.compile(this.#trx);
      return held.run<Selectable<TeamsTable>>(sql, parameters);
    };
    await writeThenCheck(this.#trx, send, (answer) => fill(answer.rows), true);
  }

  /** The events of one team's entries, the last one taking seq `last`. */
  #numbered(teamId: TeamId, entries: readonly PendingEvent[], owner: OwnerId, last: number): TeamEvent[] {
    return entries.map((entry, index) => ({
      teamId,
      owner,
      seq: last - entries.length + 1 + index,
      kind: entry.kind,
      jobId: entry.refs.jobId ?? null,
      recordId: entry.refs.recordId ?? null,
      memberId: entry.refs.memberId ?? null,
      ...(entry.refs.messageId == null ? {} : { messageId: entry.refs.messageId }),
      ...(entry.refs.taskId == null ? {} : { taskId: entry.refs.taskId }),
      ...(entry.refs.reason == null ? {} : { reason: entry.refs.reason }),
      createdAt: this.#now,
    }));
  }

  /**
   * Remembers what the writer holds now; the returned function forgets everything emitted, written
   * or announced since. For work rolled back to a savepoint (`admission-ride.ts`): the rows it wrote
   * are gone, so must be their events.
   */
  mark(): () => void {
    const touched = new Set(this.#touched);
    const emitted = new Set(this.#emitted);
    const events = this.#events.length;
    // A flush since would have written these in the rolled-back work: they are pending again.
    const pending = [...this.#pending];
    const rows = this.rows.mark();
    return () => {
      for (const place of this.#unanswered) if (place.at >= events) place.dropped = true;
      rows();
      this.#touched.clear();
      for (const teamId of touched) this.#touched.add(teamId);
      this.#emitted.clear();
      for (const key of emitted) this.#emitted.add(key);
      this.#events.length = events;
      this.#pending.splice(0, this.#pending.length, ...pending);
    };
  }

  /** Publishes an event after commit without logging it (the log itself is being deleted). */
  announce(event: TeamEvent): void {
    this.#events.push(event);
  }

  async #prune(teamId: TeamId, newestSeq: number): Promise<void> {
    const { keep, cutoff } = retentionAt(this.#now);
    await this.#trx
      .deleteFrom('team_events')
      .where('team_id', '=', teamId)
      .where('seq', '<=', newestSeq - keep)
      .where('created_at', '<', cutoff)
      .execute();
  }
}
