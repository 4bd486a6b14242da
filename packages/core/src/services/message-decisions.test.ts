import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { makeTestJob, TEST_NOW } from '../jobs/make-test-job.js';
import { messageTurnKey } from '../jobs/new-jobs.js';
import { Limits } from '../limits/limits.js';
import type { MemberId } from '../model/ids.js';
import { asAgentId, asConversationId, asJobId, asMemberId, asMessageId, asOwnerId, asTeamId } from '../model/ids.js';
import { JobKind, JobPhase } from '../model/job.js';
import { type Member, type Team, TeamStatus } from '../model/team.js';
import { MessageDelivery, type TeamMessage } from '../model/team-message.js';
import type { MailboxSnapshot } from '../ports/store/mailbox.js';
import {
  type DroppedTurnContext,
  decideMessage,
  followUpAfterDroppedTurn,
  type MessagePlan,
} from './message-decisions.js';

const team: Team = {
  id: asTeamId('team_1'),
  owner: asOwnerId('alice'),
  clientRequestId: 'c',
  name: 'T',
  goal: 'G',
  status: TeamStatus.READY,
  revision: 1,
  lastEventSeq: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const member = (n: number, retiredAt: string | null = null): Member => ({
  id: asMemberId(`member_${n}`),
  teamId: team.id,
  position: n,
  name: `M${n}`,
  agentId: asAgentId('a'),
  conversationId: asConversationId(`conversation_${n}`),
  role: null,
  isLead: false,
  retiredAt,
});
const [a, b, c] = [member(1), member(2), member(3)];
const plan = (over: Partial<MessagePlan> = {}): MessagePlan => ({
  id: asMessageId('message_1'),
  senderId: a.id,
  key: 'k',
  recipientIds: [b.id, c.id],
  text: 'hi',
  delivery: MessageDelivery.FOLLOW_UP,
  jobIds: new Map([
    [b.id, asJobId('job_b')],
    [c.id, asJobId('job_c')],
  ]),
  now: '2026-01-01T00:00:01.000Z',
  ...over,
});
const snapshot = (over: Partial<MailboxSnapshot> = {}): MailboxSnapshot => ({
  team,
  members: [a, b, c],
  existing: null,
  undelivered: new Map(),
  queuedTurn: new Set(),
  ...over,
});
const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return null;
};

describe('decideMessage', () => {
  it('inserts the message and a follow-up turn only for recipients without a queued turn', () => {
    const decision = decideMessage(plan(), snapshot({ queuedTurn: new Set([c.id]) }));
    expect(decision.insert).toMatchObject({ id: 'message_1', fromMemberId: a.id, recipientIds: [b.id, c.id] });
    expect(decision.followUps).toEqual([{ id: 'job_b', memberId: b.id, conversationId: b.conversationId }]);
    expect(decideMessage(plan({ delivery: MessageDelivery.QUIET }), snapshot()).followUps).toEqual([]);
  });

  it('refuses a retired recipient, a closed team and a full mailbox at 64, not at 63', () => {
    expect(codeOf(() => decideMessage(plan(), snapshot({ members: [a, b, member(3, 'x')] })))).toBe(
      ErrorCode.MEMBER_RETIRED,
    );
    expect(codeOf(() => decideMessage(plan(), snapshot({ team: { ...team, status: TeamStatus.CLOSED } })))).toBe(
      ErrorCode.TEAM_CLOSED,
    );
    const full = new Map([[c.id, Limits.mailboxUndelivered]]);
    expect(codeOf(() => decideMessage(plan(), snapshot({ undelivered: full })))).toBe(ErrorCode.MAILBOX_FULL);
    const room = new Map([[c.id, Limits.mailboxUndelivered - 1]]);
    expect(decideMessage(plan(), snapshot({ undelivered: room })).insert).not.toBeNull();
  });

  it('answers a retry with nothing to write, even once the team closed, and refuses other content', () => {
    const inserted = decideMessage(plan(), snapshot()).insert;
    if (inserted === null) throw new Error('expected an insert');
    const existing = { message: { ...inserted, seq: 1 }, deliveries: [] };
    const closed = { ...team, status: TeamStatus.CLOSED };
    expect(decideMessage(plan(), snapshot({ existing, team: closed }))).toEqual({ insert: null, followUps: [] });
    expect(codeOf(() => decideMessage(plan({ text: 'other' }), snapshot({ existing })))).toBe(
      ErrorCode.IDEMPOTENCY_CONFLICT,
    );
  });
});

describe('followUpAfterDroppedTurn', () => {
  const queued = makeTestJob(JobPhase.QUEUED);
  const cancelled = { ...queued, phase: JobPhase.CANCELLED };
  const message = (id: string, delivery: MessageDelivery = MessageDelivery.FOLLOW_UP): TeamMessage => ({
    id: asMessageId(id),
    teamId: queued.teamId,
    fromMemberId: null,
    recipientIds: [queued.memberId as MemberId],
    key: id,
    text: `text of ${id}`,
    delivery,
    seq: 1,
    createdAt: TEST_NOW,
  });
  const context = (over: Partial<DroppedTurnContext> = {}): DroppedTurnContext => ({
    mailbox: [message('m1')],
    otherTurnQueued: false,
    ownTurns: new Set(),
    recipientOpen: true,
    now: TEST_NOW,
    ...over,
  });

  it('queues a MESSAGE turn under the first follow-up without a turn of its own', () => {
    const job = followUpAfterDroppedTurn(
      queued,
      cancelled,
      context({ mailbox: [message('q', MessageDelivery.QUIET), message('m1')] }),
    );
    expect(job).toMatchObject({ id: `${queued.id}_follow_up`, kind: JobKind.MESSAGE, clientKey: messageTurnKey('m1') });
    // m1 had its own turn (the one dropped, say): m2, which joined it, gets the new one.
    const next = followUpAfterDroppedTurn(
      queued,
      cancelled,
      context({ mailbox: [message('m1'), message('m2')], ownTurns: new Set(['m1']) }),
    );
    expect(next?.clientKey).toBe(messageTurnKey('m2'));
  });

  it('queues none for a follow-up whose own turn was dropped, a closed team or retired member, or another queued turn', () => {
    expect(followUpAfterDroppedTurn(queued, cancelled, context({ ownTurns: new Set(['m1']) }))).toBeNull();
    expect(followUpAfterDroppedTurn(queued, cancelled, context({ recipientOpen: false }))).toBeNull();
    expect(followUpAfterDroppedTurn(queued, cancelled, context({ otherTurnQueued: true }))).toBeNull();
    expect(
      followUpAfterDroppedTurn(queued, cancelled, context({ mailbox: [message('q', MessageDelivery.QUIET)] })),
    ).toBeNull();
    // Only a turn that ends while still queued drops a promise.
    const running = makeTestJob(JobPhase.RUNNING);
    expect(followUpAfterDroppedTurn(running, { ...running, phase: JobPhase.CANCELLED }, context())).toBeNull();
  });
});
