import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import type { OwnerId } from '../model/ids.js';
import type { Member, Team } from '../model/team.js';
import { MessageDelivery, type TeamMessage } from '../model/team-message.js';
import { nowTimestamp } from '../ports/clock.js';
import type { Mailbox, SentMessage, TeamReads } from '../ports/team-store.js';
import { validateClientRequestId, validateText } from '../text/validate-text.js';
import { seqPageRequest, toConnection } from './connections.js';
import type { Core, SendMessageInput, UsesStore } from './core-types.js';
import { decideMessage } from './message-decisions.js';
import { requireTeam } from './team-service.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<TeamReads & Mailbox>;

/** A send after its checks: who sends, to whom, what, and under which key. */
export interface MessageSend {
  readonly team: Team;
  /** The sending member; null for the owner. */
  readonly sender: Member | null;
  /** Distinct recipients, in the sender's order (1–8). */
  readonly recipients: readonly Member[];
  readonly text: unknown;
  readonly delivery: MessageDelivery;
  /** The sender's idempotency key, already validated. */
  readonly key: string;
}

const MESSAGE_SCOPE = { kind: 'message' } as const;
const MESSAGE_PAGE = { defaultSize: 50, maxSize: Limits.connectionPage.max };

/**
 * Sends a team message (a member's `team_message` or a person's `sendMessage`): validates the
 * text, mints the ids up front and lets the store decide inside its transaction.
 * @throws DomainError INVALID_INPUT (text), IDEMPOTENCY_CONFLICT, TEAM_CLOSED, MEMBER_RETIRED,
 * MAILBOX_FULL, NOT_FOUND.
 */
export async function sendTeamMessage(deps: UsesStore<Mailbox>, send: MessageSend): Promise<SentMessage> {
  const text = validateText('text', send.text, Limits.messageText);
  const recipientIds = send.recipients.map((m) => m.id);
  const now = nowTimestamp(deps.clock);
  const plan = {
    id: deps.ids.messageId(),
    senderId: send.sender?.id ?? null,
    key: send.key,
    recipientIds,
    text,
    delivery: send.delivery,
    jobIds: new Map(recipientIds.map((id) => [id, deps.ids.jobId()])),
    now,
  };
  return deps.store.sendMessage({
    owner: send.team.owner,
    teamId: send.team.id,
    senderId: plan.senderId,
    key: send.key,
    recipientIds,
    now,
    decide: (snapshot) => decideMessage(plan, snapshot),
  });
}

/** Parses a delivery mode as GraphQL sends it (`QUIET`, `FOLLOW_UP`) or a tool does (`quiet`, `follow_up`). */
export function parseDelivery(value: unknown, field: string): MessageDelivery {
  const upper = typeof value === 'string' ? value.toUpperCase() : null;
  if (upper === MessageDelivery.QUIET || upper === MessageDelivery.FOLLOW_UP) return upper;
  throw new DomainError(ErrorCode.INVALID_INPUT, `${field} must be "quiet" or "follow_up".`, { field });
}

/** The distinct recipients of a person's send, by member id: 1–8, each in the team. */
function recipientsById(roster: readonly Member[], memberIds: unknown): Member[] {
  const invalid = (message: string) => new DomainError(ErrorCode.INVALID_INPUT, message, { field: 'memberIds' });
  if (!Array.isArray(memberIds) || memberIds.length === 0) throw invalid('Choose at least one member.');
  if (memberIds.length > Limits.maxMembers) throw invalid(`Choose at most ${Limits.maxMembers} members.`);
  if (new Set(memberIds).size !== memberIds.length) throw invalid('Each member may be chosen once.');
  return memberIds.map((id: unknown) => {
    const member = roster.find((m) => m.id === id);
    if (member === undefined) throw new DomainError(ErrorCode.NOT_FOUND, 'Member not found.', { field: 'memberIds' });
    return member;
  });
}

async function sendAsOwner(deps: Deps, owner: OwnerId, input: SendMessageInput): Promise<TeamMessage> {
  const key = validateClientRequestId(input.clientRequestId);
  const delivery = parseDelivery(input.delivery, 'delivery');
  const team = await requireTeam(deps, owner, input.teamId);
  const recipients = recipientsById(await deps.store.listMembers([team.id]), input.memberIds);
  const sent = await sendTeamMessage(deps, { team, sender: null, recipients, text: input.text, delivery, key });
  return sent.message;
}

/** Builds the `messages` use cases. */
export function messageService(deps: Deps): Core['messages'] {
  return {
    send: (owner, input) => sendAsOwner(deps, owner, input),
    async list(team, args) {
      const page = await deps.store.pageMessages(team.id, seqPageRequest(args, MESSAGE_SCOPE, MESSAGE_PAGE));
      return toConnection(page, (message) => message.seq, MESSAGE_SCOPE);
    },
    mailbox: (memberId) => deps.store.undeliveredMessages(memberId),
  };
}
