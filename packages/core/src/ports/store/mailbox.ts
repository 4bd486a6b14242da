import type { ConversationId, JobId, MemberId, MessageId, OwnerId, TeamId } from '../../model/ids.js';
import type { Member, Team } from '../../model/team.js';
import type { MessageDeliveryState, TeamMessage } from '../../model/team-message.js';
import type { SeqPage, SeqPageRequest } from './pages.js';

/** A message as the core decides to insert it (the store assigns `seq`). */
export type NewTeamMessage = Omit<TeamMessage, 'seq'>;

/** A MESSAGE job to queue for a follow-up: a turn in the recipient's conversation. */
export interface NewMessageJob {
  readonly id: JobId;
  readonly memberId: MemberId;
  readonly conversationId: ConversationId;
}

/** What the store knows when deciding a send inside its transaction (the team locked). */
export interface MailboxSnapshot {
  readonly team: Team;
  /** The team's roster, retired members included. */
  readonly members: readonly Member[];
  /** The message already stored under the same (sender, key), if any, with its deliveries. */
  readonly existing: { readonly message: TeamMessage; readonly deliveries: readonly MessageDeliveryState[] } | null;
  /** Undelivered messages of each named recipient (absent: none). */
  readonly undelivered: ReadonlyMap<MemberId, number>;
  /** Named recipients with a turn queued: a QUEUED job in their conversation, not yet admitted. */
  readonly queuedTurn: ReadonlySet<MemberId>;
}

/** The decision of a send: the message to insert (null for a replay) and the follow-up turns. */
export interface MailboxDecision {
  readonly insert: NewTeamMessage | null;
  readonly followUps: readonly NewMessageJob[];
}

/** Arguments of {@link Mailbox.sendMessage}. */
export interface SendMessageArgs {
  readonly owner: OwnerId;
  readonly teamId: TeamId;
  /** The sending member, null for the owner: with `key`, the idempotency key. */
  readonly senderId: MemberId | null;
  readonly key: string;
  /** The recipients named (the undelivered counts and queued turns are read for these). */
  readonly recipientIds: readonly MemberId[];
  readonly now: string;
  /** Pure; thrown DomainErrors abort the transaction. */
  readonly decide: (snapshot: MailboxSnapshot) => MailboxDecision;
}

/** The stored message of a send and where each recipient's copy went. */
export interface SentMessage {
  readonly message: TeamMessage;
  /** One per recipient, in the message's recipient order. */
  readonly deliveries: readonly MessageDeliveryState[];
  /** True when the key was used before: nothing was written. */
  readonly replayed: boolean;
}

/**
 * Store role: the team mailbox, as data. Messages are delivered into a turn by admission: the
 * transaction that freezes a recipient's turn attaches every undelivered message of that member
 * (see {@link import('./admission.js').FreezeContext.mailbox}), so a message reaches exactly one
 * turn, and a turn re-driven after a crash keeps the messages frozen in its input.
 */
export interface Mailbox {
  /**
   * Sends a message atomically: locks the team, loads the {@link MailboxSnapshot} (NOT_FOUND for
   * an absent or another owner's team), calls `decide`, inserts the message with one undelivered
   * copy per recipient and the follow-up MESSAGE jobs, appends MESSAGE_SENT (and the jobs'
   * events), bumps the revision. A replay (`insert` null with an existing message) writes nothing.
   */
  sendMessage(args: SendMessageArgs): Promise<SentMessage>;
  /** A team's messages, oldest first (`afterSeq`: the seq of the last message seen). */
  pageMessages(teamId: TeamId, page: SeqPageRequest): Promise<SeqPage<TeamMessage>>;
  /** Messages by id, any owner (batch loading); missing ids skipped. */
  findMessages(messageIds: readonly MessageId[]): Promise<readonly TeamMessage[]>;
  /** The undelivered messages of a member, oldest first. */
  undeliveredMessages(memberId: MemberId): Promise<readonly TeamMessage[]>;
  /** Where each recipient's copy of the given messages went (message order, then recipient order). */
  messageDeliveries(messageIds: readonly MessageId[]): Promise<readonly MessageDeliveryState[]>;
}
