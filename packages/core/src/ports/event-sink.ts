import type { JobId, MemberId, MessageId, OwnerId, RecordId, TeamId } from '../model/ids.js';
import type { Job } from '../model/job.js';
import type { RecordMessage } from '../model/record.js';
import type { Member, Team } from '../model/team.js';
import type { TaskId } from '../tasks/task.js';

/** Kinds of entries in a team's event log (the `TeamEvent` types of the contract). */
export const TeamEventKind = {
  JOB_CHANGED: 'JOB_CHANGED',
  RECORD_APPENDED: 'RECORD_APPENDED',
  MEMBER_CHANGED: 'MEMBER_CHANGED',
  TEAM_CHANGED: 'TEAM_CHANGED',
  /** A team message was sent (names the message). */
  MESSAGE_SENT: 'MESSAGE_SENT',
  /** A message was delivered into a turn (names the message, the recipient and the job). */
  MESSAGE_DELIVERED: 'MESSAGE_DELIVERED',
  /** A task of the board was created or changed (`taskId`); `reason` says why when the system did it. */
  TASK_CHANGED: 'TASK_CHANGED',
  // Team lifecycle (decision 0165): the lead or the owner spawned or retired a member, closed the team.
  MEMBER_SPAWNED: 'MEMBER_SPAWNED',
  MEMBER_RETIRED: 'MEMBER_RETIRED',
  TEAM_CLOSED: 'TEAM_CLOSED',
} as const;
export type TeamEventKind = (typeof TeamEventKind)[keyof typeof TeamEventKind];

/** One entry of a team's append-only event log. `seq` is strictly increasing per team. */
export interface TeamEvent {
  readonly teamId: TeamId;
  readonly owner: OwnerId;
  readonly seq: number;
  readonly kind: TeamEventKind;
  readonly jobId: JobId | null;
  readonly recordId: RecordId | null;
  readonly memberId: MemberId | null;
  /** The message of a MESSAGE_SENT or MESSAGE_DELIVERED event; absent or null otherwise. */
  readonly messageId?: MessageId | null;
  /** The task a TASK_CHANGED names (absent on other kinds). */
  readonly taskId?: TaskId | null;
  /** Why the system changed the subject (a retired owner, a closed team); absent otherwise. */
  readonly reason?: string | null;
  readonly createdAt: string;
}

/**
 * A TEAM_CHANGED entry: the team itself changed (its status, its deletion), nothing inside it
 * is named.
 */
export function teamChangedEvent(teamId: TeamId, owner: OwnerId, seq: number, createdAt: string): TeamEvent {
  return {
    teamId,
    owner,
    seq,
    kind: TeamEventKind.TEAM_CHANGED,
    jobId: null,
    recordId: null,
    memberId: null,
    createdAt,
  };
}

/**
 * Port: told about committed events (never before commit). Live subscriptions and the scheduler's
 * wake-up listen here; the event log in the store stays the source of truth.
 */
export interface EventSink {
  /**
   * @param rows - what the commit wrote, as stored, when the writer knows it (local commits);
   * absent for events read back or received from another server.
   */
  published(events: readonly TeamEvent[], rows?: CommittedRows): void;
}

/**
 * Told synchronously around the publication of one write's events, after its COMMIT: `opened`
 * right before the {@link EventSink} hears them, `closed` right after (also when a listener threw).
 * Its writer can tell its own commit's events from everyone else's by the window being open,
 * since a sink hears a commit's events synchronously and nothing else runs in between.
 *
 * @remarks Why not an async context: Node 20's `AsyncLocalStorage` runs promise hooks on every
 * promise of the process once it is used, 18 % of a `sendRequest`'s instructions (decision 0236).
 */
export interface PublishWindow {
  /** Right after the write's COMMIT, before any sink hears its events. */
  opened(): void;
  /** Right after the sinks heard them (or one of them threw). */
  closed(): void;
}

/**
 * Rows a write stored, as it stored them, so a listener that renders its events (the live feeds)
 * can show them without reading them back. Only rows stored exactly as given. Writes that share
 * one SQLite transaction publish in turn, each with its own rows: a job's last publish is final.
 */
export interface CommittedRows {
  /** Jobs by id, each as the commit's last write of it left it. */
  readonly jobs: ReadonlyMap<JobId, Job>;
  /** Record messages the commit appended, by id. */
  readonly records: ReadonlyMap<RecordId, RecordMessage>;
  /**
   * Teams whose log the commit appended to, by id, each as its row stood after the write's last
   * events were logged (every write of a team's columns logs an event after it).
   */
  readonly teams: ReadonlyMap<TeamId, Team>;
  /**
   * Members of the rosters the write read under their team's lock, by id, as they stood when read,
   * and a member it retired as it stored it: no write that reads a roster changes a member after.
   */
  readonly members: ReadonlyMap<MemberId, Member>;
}
