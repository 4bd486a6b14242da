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
 * The status dot of a member. PROVISIONING while its team is being created; otherwise the head
 * job of its conversation decides (an ADMITTING or ANSWERED job shows as queued: no slot yet, a CANCELLING one as
 * running because its run has not stopped yet). An idle member shows FAILED when its last job
 * failed, so a failure stays visible until the next job starts.
 */
export function deriveMemberStatus(teamStatus: TeamStatus, state: ConversationState): MemberStatus {
  if (teamStatus === TeamStatus.CREATING) return MemberStatus.PROVISIONING;
  switch (state.head) {
    case JobPhase.QUEUED:
    case JobPhase.ADMITTING:
    case JobPhase.ANSWERED:
      return MemberStatus.QUEUED;
    case JobPhase.RUNNING:
    case JobPhase.RESUMING:
    case JobPhase.CANCELLING:
      return MemberStatus.RUNNING;
    case JobPhase.WAITING_INPUT:
      return MemberStatus.WAITING_INPUT;
    default:
      return state.lastFinished === JobPhase.FAILED ? MemberStatus.FAILED : MemberStatus.IDLE;
  }
}
