import type { Timestamp } from '../ports/clock.js';
import type { JobId, MemberId, MessageId, TeamId } from './ids.js';

/**
 * How a team message reaches its recipients. QUIET: it waits for the recipient's next turn.
 * FOLLOW_UP: it also makes sure a turn follows (a MESSAGE job when the recipient has none queued).
 */
export const MessageDelivery = { QUIET: 'QUIET', FOLLOW_UP: 'FOLLOW_UP' } as const;
export type MessageDelivery = (typeof MessageDelivery)[keyof typeof MessageDelivery];

/** A message sent to members of a team, by a member or by the team's owner. */
export interface TeamMessage {
  readonly id: MessageId;
  readonly teamId: TeamId;
  /** The sending member; null when a person (the owner) sent it. */
  readonly fromMemberId: MemberId | null;
  /** The recipients, in the order the sender named them. */
  readonly recipientIds: readonly MemberId[];
  /**
   * The sender's idempotency key (a member's `message_id`, a person's `clientRequestId`): unique
   * per team and sender; the id a recipient's conversation names the message by.
   */
  readonly key: string;
  readonly text: string;
  readonly delivery: MessageDelivery;
  /** Database-wide creation order; a recipient receives its messages in this order. */
  readonly seq: number;
  readonly createdAt: Timestamp;
}

/** Where one recipient's copy of a message went: null while undelivered, else the job of the turn. */
export interface MessageDeliveryState {
  readonly messageId: MessageId;
  readonly memberId: MemberId;
  readonly jobId: JobId | null;
}

/**
 * A message as a turn receives it (frozen in the turn input): the recipient's conversation gets
 * it as a user-role entry that starts with {@link teamMessageHeading}.
 */
export interface TurnMessage {
  readonly id: MessageId;
  /** The sender's key, named in the heading. */
  readonly key: string;
  /** The sender's member name, or `person` for the owner. */
  readonly fromName: string;
  readonly text: string;
}

/** `Team message <message_id> from <sender name>:`, the first line of a delivered message. */
export function teamMessageHeading(message: Pick<TurnMessage, 'key' | 'fromName'>): string {
  return `Team message ${message.key} from ${message.fromName}:`;
}

/** The user-role conversation entry of a delivered message: the heading, then the text. */
export function teamMessageEntry(message: TurnMessage): string {
  return `${teamMessageHeading(message)}\n${message.text}`;
}
