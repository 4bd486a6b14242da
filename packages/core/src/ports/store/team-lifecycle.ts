import type { TransitionOutcome } from '../../jobs/job-machine.js';
import type { JobId, MemberId, OwnerId, TeamId } from '../../model/ids.js';
import type { Job } from '../../model/job.js';
import type { Member, Team } from '../../model/team.js';
import type { NewConversationMessage } from './record-roles.js';
import type { NewMember } from './team-roles.js';
import type { ToolRequest } from './tool-requests.js';

/** Arguments of {@link TeamLifecycle.spawnMember}. */
export interface SpawnMemberArgs {
  readonly owner: OwnerId;
  readonly teamId: TeamId;
  /** The member to add (ids minted by the core); roster position is the next free one. */
  readonly member: NewMember;
  /** Idempotency key of the spawn (`request_id`, `clientRequestId`). */
  readonly clientKey: string;
  /** Hash of the spawn's content, compared on a retry with the same key. */
  readonly fingerprint: string;
  /** Most active (not retired) members a team may hold (`MEMBER_COUNT` past it). */
  readonly maxActive: number;
  /** Most member rows a team may ever hold, retired ones included (names are never reused). */
  readonly maxEver: number;
  /** The new conversation's first messages (a fork), written only when the member is created. */
  readonly seed: readonly NewConversationMessage[];
  readonly now: string;
}

/** Arguments of {@link TeamLifecycle.retireMember}. */
export interface RetireMemberArgs {
  readonly owner: OwnerId;
  readonly teamId: TeamId;
  readonly memberId: MemberId;
  readonly now: string;
  /** The cancel step for each of the member's unfinished jobs (the core's CANCEL transition). */
  readonly cancel: (job: Job) => TransitionOutcome;
}

/** Arguments of {@link TeamLifecycle.closeTeam}. */
export interface CloseTeamArgs {
  readonly owner: OwnerId;
  readonly teamId: TeamId;
  readonly now: string;
  /** The cancel step for each unfinished job that holds no active slot. */
  readonly cancel: (job: Job) => TransitionOutcome;
}

/** Arguments of {@link TeamLifecycle.interruptTurn}. */
export interface InterruptTurnArgs {
  readonly owner: OwnerId;
  readonly teamId: TeamId;
  /** The member's current turn (the head job of its conversation, begun), or null: none begun. */
  readonly jobId: JobId | null;
  /** The idempotency key of the lead's call (`request_id` of `team_interrupt`); null for none. */
  readonly request: ToolRequest | null;
  readonly now: string;
  /** The cancel step of the turn (the core's CANCEL, with the reason). */
  readonly cancel: (job: Job) => TransitionOutcome;
}

/**
 * Store role: the team lifecycle writes (decision 0165), each ONE transaction under the team lock.
 *
 * @remarks Retire and close each end with a marked cleanup seam where other features release
 * what a retired member or a closed team holds (the task board's claims), in the same transaction.
 */
export interface TeamLifecycle {
  /**
   * Adds a member to a READY team, idempotent by (team, `clientKey`): a retry with the same
   * fingerprint answers the member it created (`created: false`), another fingerprint is
   * IDEMPOTENCY_CONFLICT. Throws NOT_FOUND (team absent or another owner's), TEAM_CLOSED,
   * DUPLICATE_MEMBER_NAME (any member ever, retired ones included) or MEMBER_COUNT. Emits
   * MEMBER_SPAWNED and MEMBER_CHANGED.
   */
  spawnMember(args: SpawnMemberArgs): Promise<{ member: Member; created: boolean }>;
  /**
   * Retires a member: stamps `retiredAt`, applies `cancel` to each of its unfinished jobs, emits
   * MEMBER_RETIRED and MEMBER_CHANGED. Retiring a retired member changes nothing (no jobs
   * cancelled). Throws NOT_FOUND (team or member).
   */
  retireMember(args: RetireMemberArgs): Promise<{ member: Member; cancelled: readonly Job[] }>;
  /**
   * Closes a team: status CLOSED, `cancel` applied to every unfinished job that holds no active
   * slot (running turns end on their own), TEAM_CLOSED and TEAM_CHANGED emitted. Closing a closed
   * team changes nothing. Throws NOT_FOUND.
   */
  closeTeam(args: CloseTeamArgs): Promise<{ team: Team; cancelled: readonly Job[] }>;
  /**
   * Ends a member's turn: applies `cancel` to `jobId` (when given) and records `request` with that
   * job id (when given), in one transaction. A `request` whose key was recorded before changes
   * nothing and answers the job recorded then, as it is now, or null when that call found no turn
   * (`replayed`); another fingerprint under the key is IDEMPOTENCY_CONFLICT. Throws NOT_FOUND
   * (team absent or another owner's, job not of the team).
   */
  interruptTurn(args: InterruptTurnArgs): Promise<{ job: Job | null; replayed: boolean }>;
}
