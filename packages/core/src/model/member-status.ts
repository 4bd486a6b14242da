import type { Timestamp } from '../ports/clock.js';
import { JobPhase } from './job.js';
import { MemberStatus, TeamStatus } from './team.js';

/** What the store knows about a member's conversation (see `TeamStore.conversationStates`). */
export interface ConversationState {
  /** Phase of the oldest unfinished job, or null when the conversation is idle. */
  readonly head: JobPhase | null;
  /** Phase of the most recently finished job, or null when none finished yet. */
  readonly lastFinished: JobPhase | null;
}

/**
 * The status dot of a member. RETIRED once it is retired, whatever its team or jobs do;
 * PROVISIONING while its team is being created; otherwise the head job of its conversation decides
 * (an ADMITTING or ANSWERED job shows as queued: no slot yet, a CANCELLING one as running because
 * its run has not stopped yet). An idle member shows FAILED when its last job failed, so a failure
 * stays visible until the next job starts.
 *
 * @remarks A job paused in `wait_for_change` (WAITING_CHANGE) shows as RUNNING: the member's turn
 * is open and continues by itself on the next team change or at its deadline, and no other turn
 * starts in that conversation meanwhile, like CANCELLING. The other candidates mislead: IDLE would
 * promise a free conversation, WAITING_INPUT asks a person for an answer nobody can give (the
 * widget shows it as "Needs input"), QUEUED says no turn began. The job itself says WAITING_CHANGE.
 */
export function deriveMemberStatus(
  teamStatus: TeamStatus,
  state: ConversationState,
  retiredAt: Timestamp | null,
): MemberStatus {
  if (retiredAt !== null) return MemberStatus.RETIRED;
  if (teamStatus === TeamStatus.CREATING) return MemberStatus.PROVISIONING;
  switch (state.head) {
    case JobPhase.QUEUED:
    case JobPhase.ADMITTING:
    case JobPhase.ANSWERED:
      return MemberStatus.QUEUED;
    case JobPhase.RUNNING:
    case JobPhase.RESUMING:
    case JobPhase.CANCELLING:
    case JobPhase.WAITING_CHANGE:
      return MemberStatus.RUNNING;
    case JobPhase.WAITING_INPUT:
      return MemberStatus.WAITING_INPUT;
    default:
      return state.lastFinished === JobPhase.FAILED ? MemberStatus.FAILED : MemberStatus.IDLE;
  }
}
