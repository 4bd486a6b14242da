import type { Timestamp } from '../ports/clock.js';
import type { JobId, MemberId, RecordId, TeamId } from './ids.js';

/** Kinds of shared-record messages: a request was made, or a job reached a terminal state. */
export const RecordKind = {
  REQUEST: 'REQUEST',
  COMPLETED: 'COMPLETED',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
} as const;
export type RecordKind = (typeof RecordKind)[keyof typeof RecordKind];

/** One message of a team's shared record (the newest 100 are retained per team). */
export interface RecordMessage {
  readonly id: RecordId;
  readonly teamId: TeamId;
  /** Order within the team, strictly increasing. */
  readonly seq: number;
  readonly kind: RecordKind;
  readonly jobId: JobId | null;
  /** The member the message is about (target of a request, executor of an outcome). */
  readonly memberId: MemberId | null;
  /** The member who sent it; null for a person. */
  readonly fromMemberId: MemberId | null;
  /** At most 6,000 UTF-8 bytes. */
  readonly text: string;
  readonly truncated: boolean;
  readonly createdAt: Timestamp;
}
