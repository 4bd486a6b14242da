import {
  followUpAfterDroppedTurn,
  isTerminal,
  type Job,
  JobPhase,
  type Mailbox,
  type MemberId,
  type MessageDeliveryState,
  type MessageId,
  messageTurnKey,
  queuedMessageJob,
  type SendMessageArgs,
  type SentMessage,
  type TeamMessage,
  TeamStatus,
} from '@agent-teams/core';
import { type MemoryStoreState, pageOf, type TeamWrite } from './state.js';
import { teamNotFound } from './team-writes.js';

const deliveryKey = (messageId: MessageId, memberId: MemberId): string => `${messageId}\u0000${memberId}`;

/** Where each recipient's copy of `message` went, in its recipient order. */
function deliveriesOf(state: MemoryStoreState, message: TeamMessage): MessageDeliveryState[] {
  return message.recipientIds.map((memberId) => ({
    messageId: message.id,
    memberId,
    jobId: state.deliveries.get(deliveryKey(message.id, memberId)) ?? null,
  }));
}

/** The undelivered messages of a member, oldest first. */
export function undeliveredIn(state: MemoryStoreState, memberId: MemberId): TeamMessage[] {
  return [...state.teamMessages.values()].filter(
    (message) =>
      message.recipientIds.includes(memberId) && state.deliveries.get(deliveryKey(message.id, memberId)) === null,
  );
}

/**
 * Marks the messages a just-frozen turn names in its input as delivered into it, with one
 * MESSAGE_DELIVERED event each (the admission's write).
 */
export function deliverFrozen(state: MemoryStoreState, write: TeamWrite, job: Job): void {
  if (job.phase !== JobPhase.ADMITTING || job.memberId === null) return;
  for (const message of job.input?.messages ?? []) {
    const key = deliveryKey(message.id, job.memberId);
    if (state.deliveries.get(key) !== null) continue;
    state.deliveries.set(key, job.id);
    write.event('MESSAGE_DELIVERED', { messageId: message.id, memberId: job.memberId, jobId: job.id });
  }
}

/** `keepFollowUp` of the SQL store: a dropped queued turn's pending follow-up still gets a turn. */
export function keepFollowUpIn(state: MemoryStoreState, write: TeamWrite, before: Job, after: Job): void {
  // Only a job that ends while still QUEUED can drop a promised turn (admission moves it on, not out).
  if (before.phase !== JobPhase.QUEUED || !isTerminal(after.phase) || after.memberId === null) return;
  const queued = [...state.jobs.values()].some(
    (j) => j.conversationId === after.conversationId && j.phase === JobPhase.QUEUED,
  );
  const mailbox = undeliveredIn(state, after.memberId);
  const keys = new Set(
    [...state.jobs.values()]
      .filter((j) => j.memberId === after.memberId && j.teamId === after.teamId)
      .map((j) => j.clientKey),
  );
  const ownTurns = new Set(mailbox.filter((m) => keys.has(messageTurnKey(m.id))).map((m) => m.id));
  const team = state.teams.get(after.teamId)?.team;
  const member = (state.rosters.get(after.teamId) ?? []).find((m) => m.id === after.memberId);
  const job = followUpAfterDroppedTurn(before, after, {
    mailbox,
    otherTurnQueued: queued,
    ownTurns,
    recipientOpen: team?.status === TeamStatus.READY && member !== undefined && member.retiredAt === null,
    now: write.now,
  });
  if (job === null || state.jobs.has(job.id)) return;
  state.jobSeq += 1;
  state.jobs.set(job.id, { ...job, seq: state.jobSeq });
  write.event('JOB_CHANGED', { jobId: job.id });
}

function sendIn(state: MemoryStoreState, args: SendMessageArgs): SentMessage {
  const team = state.teams.get(args.teamId)?.team;
  if (team === undefined || team.owner !== args.owner) throw teamNotFound();
  const jobs = [...state.jobs.values()];
  const members = state.rosters.get(team.id) ?? [];
  const existing = [...state.teamMessages.values()].find(
    (m) => m.teamId === team.id && m.fromMemberId === args.senderId && m.key === args.key,
  );
  const undelivered = new Map(args.recipientIds.map((id) => [id, undeliveredIn(state, id).length]));
  const queuedTurn = new Set(
    args.recipientIds.filter((id) => {
      const conversationId = members.find((m) => m.id === id)?.conversationId;
      return jobs.some((j) => j.conversationId === conversationId && j.phase === JobPhase.QUEUED);
    }),
  );
  const decision = args.decide({
    team,
    members,
    existing: existing === undefined ? null : { message: existing, deliveries: deliveriesOf(state, existing) },
    undelivered,
    queuedTurn,
  });
  if (decision.insert === null) {
    if (existing === undefined) throw new Error('[agent-teams/testkit] a send decided nothing for a new key');
    return { message: existing, deliveries: deliveriesOf(state, existing), replayed: true };
  }
  state.teamMessageSeq += 1;
  const message: TeamMessage = { ...decision.insert, seq: state.teamMessageSeq };
  state.teamMessages.set(message.id, message);
  for (const memberId of message.recipientIds) state.deliveries.set(deliveryKey(message.id, memberId), null);
  const write = state.write(team.id, args.now);
  write.event('MESSAGE_SENT', { messageId: message.id });
  for (const followUp of decision.followUps) {
    state.jobSeq += 1;
    const job: Job = { ...queuedMessageJob(followUp, message, team, args.now), seq: state.jobSeq };
    state.jobs.set(job.id, job);
    write.event('JOB_CHANGED', { jobId: job.id });
    write.event('MEMBER_CHANGED', { memberId: followUp.memberId });
  }
  state.commit(write);
  return { message, deliveries: deliveriesOf(state, message), replayed: false };
}

/** The in-memory {@link Mailbox}: each method reads and writes synchronously, so it is atomic. */
export function memoryMailbox(state: MemoryStoreState): Mailbox {
  return {
    sendMessage: async (args) => sendIn(state, args),
    async pageMessages(teamId, page) {
      const after = page.afterSeq ?? 0;
      const items = [...state.teamMessages.values()].filter((m) => m.teamId === teamId && m.seq > after);
      return pageOf(items, page.first);
    },
    async findMessages(ids) {
      // Each id once, in the order asked, like the SQL store.
      return [...new Set(ids)].flatMap((id) => state.teamMessages.get(id) ?? []);
    },
    undeliveredMessages: async (memberId) => undeliveredIn(state, memberId),
    async messageDeliveries(ids) {
      return ids.flatMap((id) => {
        const message = state.teamMessages.get(id);
        return message === undefined ? [] : deliveriesOf(state, message);
      });
    },
  };
}
