import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import type { Member } from '../model/team.js';
import type { Mailbox } from '../ports/team-store.js';
import type { UsesStore } from '../services/core-types.js';
import type { ToolCaller } from '../services/handoff-service.js';
import { parseDelivery, sendTeamMessage } from '../services/message-service.js';
import { validateClientRequestId } from '../text/validate-text.js';

/** What `to` accepts besides names and ids: every other active member. */
const ALL = 'all';

/** `team_message`'s answer: the caller's key and where each recipient's copy is. */
export interface TeamMessageAnswer {
  readonly message_id: string;
  readonly recipients: readonly { readonly member: string; readonly state: 'delivered' | 'queued' }[];
}

/**
 * The recipients `to` names: `"all"` (or `["all"]`) for every other member not retired, else 1–8
 * names or ids of the caller's team (a member named twice counts once; the caller itself is
 * refused with SELF_REQUEST).
 */
export function messageRecipients(caller: ToolCaller, to: unknown): Member[] {
  const invalid = (message: string) => new DomainError(ErrorCode.INVALID_INPUT, message, { field: 'to' });
  if (to === ALL || (Array.isArray(to) && to.length === 1 && to[0] === ALL)) {
    const others = caller.roster.filter((m) => m.id !== caller.member.id && m.retiredAt === null);
    if (others.length === 0) throw invalid('There is no other active member to message.');
    return others;
  }
  if (!Array.isArray(to) || to.length === 0) throw invalid('to must name at least one member, or be "all".');
  if (to.length > Limits.maxMembers) throw invalid(`to may name at most ${Limits.maxMembers} members.`);
  const recipients: Member[] = [];
  for (const wanted of to) {
    if (typeof wanted !== 'string') throw invalid('to must hold member names or ids.');
    const member = caller.roster.find((m) => m.id === wanted) ?? caller.roster.find((m) => m.name === wanted.trim());
    if (member === undefined)
      throw new DomainError(ErrorCode.NOT_FOUND, `No member "${wanted}" in this team.`, { field: 'to' });
    if (member.id === caller.member.id) {
      throw new DomainError(ErrorCode.SELF_REQUEST, 'Choose other members: a member cannot message itself.', {
        field: 'to',
      });
    }
    if (!recipients.includes(member)) recipients.push(member);
  }
  return recipients;
}

/**
 * `team_message`: any member messages others of its team, quietly or as a follow-up, idempotent
 * by its `message_id`.
 * @throws DomainError INVALID_INPUT, NOT_FOUND, SELF_REQUEST, IDEMPOTENCY_CONFLICT, TEAM_CLOSED,
 * MEMBER_RETIRED, MAILBOX_FULL.
 */
export async function teamMessage(
  deps: UsesStore<Mailbox>,
  caller: ToolCaller,
  args: Readonly<Record<string, unknown>>,
): Promise<TeamMessageAnswer> {
  const key = validateClientRequestId(args.message_id, 'message_id');
  const delivery = parseDelivery(args.delivery, 'delivery');
  const recipients = messageRecipients(caller, args.to);
  const send = { team: caller.team, sender: caller.member, recipients, text: args.text, delivery, key };
  const sent = await sendTeamMessage(deps, send);
  const nameOf = (id: string) => caller.roster.find((m) => m.id === id)?.name ?? id;
  return {
    message_id: key,
    recipients: sent.deliveries.map((d) => ({
      member: nameOf(d.memberId),
      state: d.jobId === null ? ('queued' as const) : ('delivered' as const),
    })),
  };
}
