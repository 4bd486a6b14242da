import {
  asOwnerId,
  type JobId,
  type MemberId,
  type MessageId,
  type RecordId,
  type TaskId,
  type TeamEvent,
  type TeamEventKind,
  type TeamId,
} from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from './database-types.js';

/** Events kept regardless of age, per team. */
const KEEP_EVENTS = 1_000;
/** Events younger than this are kept regardless of count (a day of `afterSeq` replay). */
const KEEP_EVENTS_MS = 24 * 60 * 60 * 1_000;
/**
 * A team's log is pruned when its seq passes a multiple of this: one range delete per 64 events
 * instead of one per transaction (retention is a floor, so a few dozen more events kept is fine).
 */
const PRUNE_EVERY = 64;

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
  readonly #touched = new Set<string>();
  readonly #emitted = new Set<string>();
  readonly #events: TeamEvent[] = [];
  readonly #pending: PendingEvent[] = [];

  constructor(trx: Kysely<Database>, now: string) {
    this.#trx = trx;
    this.#now = now;
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
      const team = await this.#trx
        .updateTable('teams')
        .set((eb) => ({
          last_event_seq: eb('last_event_seq', '+', entries.length),
          revision: first ? eb('revision', '+', 1) : eb.ref('revision'),
          updated_at: this.#now,
        }))
        .where('id', '=', teamId)
        .returning(['owner', 'last_event_seq'])
        .executeTakeFirstOrThrow();
      const last = Number(team.last_event_seq);
      const events: TeamEvent[] = entries.map((entry, index) => ({
        teamId,
        owner: asOwnerId(team.owner),
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
      // Pruned whenever the seqs pass a multiple of PRUNE_EVERY.
      if (Math.floor(last / PRUNE_EVERY) > Math.floor((last - entries.length) / PRUNE_EVERY)) {
        await this.#prune(teamId, last);
      }
      await this.#trx
        .insertInto('team_events')
        .values(
          events.map((event) => ({
            team_id: teamId,
            seq: event.seq,
            kind: event.kind,
            job_id: event.jobId,
            record_id: event.recordId,
            member_id: event.memberId,
            message_id: event.messageId ?? null,
            task_id: event.taskId ?? null,
            reason: event.reason ?? null,
            created_at: this.#now,
          })),
        )
        .execute();
      this.#events.push(...events);
    }
  }

  /** Publishes an event after commit without logging it (the log itself is being deleted). */
  announce(event: TeamEvent): void {
    this.#events.push(event);
  }

  async #prune(teamId: TeamId, newestSeq: number): Promise<void> {
    const cutoff = new Date(Date.parse(this.#now) - KEEP_EVENTS_MS).toISOString();
    await this.#trx
      .deleteFrom('team_events')
      .where('team_id', '=', teamId)
      .where('seq', '<=', newestSeq - KEEP_EVENTS)
      .where('created_at', '<', cutoff)
      .execute();
  }
}
