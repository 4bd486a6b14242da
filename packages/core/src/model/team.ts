import type { Timestamp } from '../ports/clock.js';
import type { AgentId, ConversationId, MemberId, OwnerId, TeamId } from './ids.js';

/**
 * Lifecycle of a team. CREATING: member conversations are still being ensured (work is accepted
 * but not admitted). READY: normal operation. DISCONNECTED: a runtime reported lost access or an
 * ambiguous failure; active jobs keep their state and queued work waits for `reconnectTeam`.
 * CLOSED: accepts no new requests, messages or tasks (TEAM_CLOSED) and stays readable.
 */
export const TeamStatus = {
  CREATING: 'CREATING',
  READY: 'READY',
  DISCONNECTED: 'DISCONNECTED',
  CLOSED: 'CLOSED',
} as const;
export type TeamStatus = (typeof TeamStatus)[keyof typeof TeamStatus];

/** A team of agents owned by one person. */
export interface Team {
  readonly id: TeamId;
  readonly owner: OwnerId;
  /** The creator's idempotency key. */
  readonly clientRequestId: string;
  readonly name: string;
  readonly goal: string;
  readonly status: TeamStatus;
  /** Bumped by every change a client can see; the activity feed compares it. */
  readonly revision: number;
  /** Highest event `seq` appended to the team's event log. */
  readonly lastEventSeq: number;
  readonly createdAt: Timestamp;
  readonly updatedAt: Timestamp;
}

/** A member of a team: a named agent with its own persistent conversation. Roster is fixed. */
export interface Member {
  readonly id: MemberId;
  readonly teamId: TeamId;
  /** Roster order, 0-based. */
  readonly position: number;
  /** Unique within the team, trimmed. */
  readonly name: string;
  readonly agentId: AgentId;
  readonly conversationId: ConversationId;
  /** Free text shown in the roster, the team context and the member's instructions; null without one. */
  readonly role: string | null;
  /** At most one member of a team is its lead. */
  readonly isLead: boolean;
  /** When the member was retired (it then shows as RETIRED); null while it is active. */
  readonly retiredAt: Timestamp | null;
}

/**
 * Derived status of a member for status dots: RETIRED once retired, PROVISIONING while its team is
 * CREATING, else from the head job of its conversation.
 */
export const MemberStatus = {
  PROVISIONING: 'PROVISIONING',
  IDLE: 'IDLE',
  QUEUED: 'QUEUED',
  RUNNING: 'RUNNING',
  WAITING_INPUT: 'WAITING_INPUT',
  FAILED: 'FAILED',
  RETIRED: 'RETIRED',
} as const;
export type MemberStatus = (typeof MemberStatus)[keyof typeof MemberStatus];
