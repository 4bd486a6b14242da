import {
  asJobId,
  asMemberId,
  asMessageId,
  asTeamId,
  type Job,
  JobPhase,
  type MemberId,
  type MessageDelivery,
  type MessageDeliveryState,
  type MessageId,
  queuedMessageJob,
  type SendMessageArgs,
  type SentMessage,
  type SeqPage,
  type SeqPageRequest,
  TeamEventKind,
  type TeamId,
  type TeamMessage,
} from '@agent-teams/core';
import type { Kysely, Selectable } from 'kysely';
import { CompiledStatement } from './compiled-statement.js';
import type { Database, TeamMessagesTable } from './database-types.js';
import { UNFINISHED } from './job-reads.js';
import { insertJob } from './job-row-writes.js';
import { literalPhase } from './literal-phase.js';
import { pgHeld } from './pg-held-connection.js';
import { exactlyRows } from './pg-server-check.js';
import { toTeam, withoutSeq } from './row-mappers.js';
import { readStoredStrings } from './stored-json.js';
import { inInputOrder, listMembers } from './team-reads.js';
import type { WriteScope } from './write-transaction.js';

/** Maps a `team_messages` row to a {@link TeamMessage}. */
export function toMessage(row: Selectable<TeamMessagesTable>): TeamMessage {
  return {
    id: asMessageId(row.id),
    teamId: asTeamId(row.team_id),
    fromMemberId: row.from_member_id === null ? null : asMemberId(row.from_member_id),
    // Read under the team lock by every admission of its recipients: a value that does not read
    // must not fail those passes (`stored-json.ts`); the deliveries table still says who gets it.
    recipientIds: readStoredStrings(
      { table: 'team_messages', column: 'recipients_json', id: row.id },
      row.recipients_json,
    ).map(asMemberId),
    key: row.client_key,
    text: row.text,
    delivery: row.delivery as MessageDelivery,
    seq: Number(row.seq),
    createdAt: row.created_at,
  };
}

/** Where each recipient's copy of the given messages went, in message then recipient order. */
export async function messageDeliveries(
  db: Kysely<Database>,
  messages: readonly TeamMessage[],
): Promise<MessageDeliveryState[]> {
  if (messages.length === 0) return [];
  const rows = await db
    .selectFrom('team_message_deliveries')
    .select(['message_id', 'member_id', 'job_id'])
    .where(
      'message_id',
      'in',
      messages.map((m) => m.id),
    )
    .execute();
  const jobOf = new Map(rows.map((row) => [`${row.message_id}\u0000${row.member_id}`, row.job_id]));
  return messages.flatMap((message) =>
    message.recipientIds.map((memberId) => {
      const jobId = jobOf.get(`${message.id}\u0000${memberId}`) ?? null;
      return { messageId: message.id, memberId, jobId: jobId === null ? null : asJobId(jobId) };
    }),
  );
}

/** Messages by id, in the order asked; missing ids skipped. */
export async function findMessages(db: Kysely<Database>, ids: readonly MessageId[]): Promise<TeamMessage[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('team_messages')
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return inInputOrder(ids, rows.map(toMessage), (message) => message.id);
}

/** A member's undelivered messages, in send order; compiled once. */
const UNDELIVERED = new CompiledStatement(1, (db, memberId: string) =>
  db
    .selectFrom('team_message_deliveries as d')
    .innerJoin('team_messages as m', 'm.id', 'd.message_id')
    .selectAll('m')
    .where('d.member_id', '=', memberId)
    .where('d.job_id', 'is', null)
    .orderBy('d.message_seq'),
);

/** The undelivered messages of a member, oldest first (the partial index, in message order). */
export async function undeliveredMessages(db: Kysely<Database>, memberId: MemberId): Promise<TeamMessage[]> {
  const rows = await UNDELIVERED.rows(db, memberId);
  return rows.map(toMessage);
}

/** A team's messages, oldest first, after `afterSeq`. */
export async function pageMessages(
  db: Kysely<Database>,
  teamId: TeamId,
  page: SeqPageRequest,
): Promise<SeqPage<TeamMessage>> {
  const rows = await db
    .selectFrom('team_messages')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('seq', '>', page.afterSeq ?? 0)
    .orderBy('seq')
    // Bound: a caller's page size (1–100); in the text it would add a statement per size to a
    // statement cache of 500 texts and could evict a turn's (decision 0231).
    .limit(page.first + 1)
    .execute();
  return { items: rows.slice(0, page.first).map(toMessage), hasNextPage: rows.length > page.first };
}

/** Counts the undelivered copies of each named member. */
async function undeliveredCounts(scope: WriteScope, memberIds: readonly MemberId[]): Promise<Map<MemberId, number>> {
  if (memberIds.length === 0) return new Map();
  const rows = await scope.trx
    .selectFrom('team_message_deliveries')
    .select(['member_id', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('member_id', 'in', memberIds)
    .where('job_id', 'is', null)
    .groupBy('member_id')
    .execute();
  return new Map(rows.map((row) => [asMemberId(row.member_id), Number(row.n)]));
}

/** The named members whose conversation has a QUEUED (not yet admitted) job. */
async function queuedTurns(scope: WriteScope, conversations: ReadonlyMap<string, MemberId>): Promise<Set<MemberId>> {
  if (conversations.size === 0) return new Set();
  const rows = await scope.trx
    .selectFrom('jobs')
    .select('conversation_id')
    .distinct()
    .where('unfinished', '=', UNFINISHED)
    .where('phase', '=', literalPhase(JobPhase.QUEUED))
    .where('conversation_id', 'in', [...conversations.keys()])
    .execute();
  return new Set(rows.flatMap((row) => conversations.get(row.conversation_id) ?? []));
}

/** Locks the team, decides the send, and writes the message, its copies and the follow-up jobs. */
export async function sendMessage(scope: WriteScope, args: SendMessageArgs): Promise<SentMessage> {
  const teamRow = await scope.lockOwnedTeam(args.owner, args.teamId);
  const team = withoutSeq(toTeam(teamRow));
  const members = await listMembers(scope.trx, [team.id]);
  const senderKey = args.senderId ?? '';
  const existingRow = await scope.trx
    .selectFrom('team_messages')
    .selectAll()
    .where('team_id', '=', team.id)
    .where('sender_key', '=', senderKey)
    .where('client_key', '=', args.key)
    .executeTakeFirst();
  const existing = existingRow === undefined ? null : toMessage(existingRow);
  const named = new Map(
    members.filter((m) => args.recipientIds.includes(m.id)).map((m) => [m.conversationId as string, m.id]),
  );
  const decision = args.decide({
    team,
    members,
    existing:
      existing === null ? null : { message: existing, deliveries: await messageDeliveries(scope.trx, [existing]) },
    undelivered: await undeliveredCounts(scope, args.recipientIds),
    queuedTurn: await queuedTurns(scope, named),
  });
  if (decision.insert === null) {
    if (existing === null) throw new Error('[agent-teams/api] a send decided nothing for a new key');
    return { message: existing, deliveries: await messageDeliveries(scope.trx, [existing]), replayed: true };
  }
  const { insert } = decision;
  const stored = await scope.trx
    .insertInto('team_messages')
    .values({
      id: insert.id,
      team_id: team.id,
      from_member_id: insert.fromMemberId,
      sender_key: senderKey,
      client_key: insert.key,
      text: insert.text,
      delivery: insert.delivery,
      recipients_json: JSON.stringify(insert.recipientIds),
      created_at: scope.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const message = toMessage(stored);
  await scope.trx
    .insertInto('team_message_deliveries')
    .values(
      message.recipientIds.map((memberId) => ({
        message_id: message.id,
        member_id: memberId,
        team_id: team.id,
        message_seq: message.seq,
        job_id: null,
        delivered_at: null,
      })),
    )
    .execute();
  await scope.events.emit(team.id, TeamEventKind.MESSAGE_SENT, { messageId: message.id });
  for (const followUp of decision.followUps) {
    const job = queuedMessageJob(followUp, message, team, scope.now);
    await insertJob(scope.trx, job, scope.now);
    await scope.events.emit(team.id, TeamEventKind.JOB_CHANGED, { jobId: job.id });
    await scope.events.emit(team.id, TeamEventKind.MEMBER_CHANGED, { memberId: followUp.memberId });
  }
  const deliveries = message.recipientIds.map((memberId) => ({ messageId: message.id, memberId, jobId: null }));
  return { message, deliveries, replayed: false };
}

/**
 * Marks the messages a just-frozen turn names in its input as delivered into it, in the
 * admission's transaction, with one MESSAGE_DELIVERED event each, in send order. Only undelivered
 * copies change: the turn input is the one source of what the turn received.
 *
 * @param undelivered the member's undelivered messages as its freeze read them under the team's
 * lock. On PostgreSQL the update is then sent and left (decision 0259): the copies it changes are
 * exactly those of the input found there (a send to the member waits for the lock, and one job
 * per member is admitted at a time), so the events are known before the answer, and the server
 * fails the statement (and the admission) unless it changed that many.
 */
export async function deliverFrozen(scope: WriteScope, job: Job, undelivered: readonly TeamMessage[]): Promise<void> {
  const messages = job.input?.messages ?? [];
  if (job.phase !== JobPhase.ADMITTING || job.memberId === null || messages.length === 0) return;
  const memberId = job.memberId;
  const deliver = (ids: readonly string[]) =>
    scope.trx
      .updateTable('team_message_deliveries')
      .set({ job_id: job.id, delivered_at: scope.now })
      .where('member_id', '=', memberId)
      .where('job_id', 'is', null)
      .where('message_id', 'in', ids)
      .returning(['message_id', 'message_seq']);
  const emit = (messageId: string) =>
    scope.events.emit(job.teamId, TeamEventKind.MESSAGE_DELIVERED, {
      messageId: asMessageId(messageId),
      memberId,
      jobId: job.id,
    });
  const held = pgHeld(scope.trx);
  const frozen = new Set<string>(messages.map((message) => message.id));
  // In send order, as the read orders them (by the delivery's `message_seq`).
  const delivering = undelivered.filter((message) => frozen.has(message.id)).map((message) => message.id);
  // A freeze builds its input from that very read, so every message of it is there; one that is
  // not (an input built otherwise) is delivered as before, awaited for the copies it changed.
  if (held !== undefined && delivering.length === frozen.size) {
    const { sql, parameters } = exactlyRows(
      scope.trx,
      deliver(delivering),
      'the frozen messages delivered',
      delivering.length,
    ).compile();
    held.defer(held.run(sql, parameters), () => undefined, true);
    for (const id of delivering) await emit(id);
    return;
  }
  const updated = await deliver(messages.map((message) => message.id)).execute();
  updated.sort((a, b) => Number(a.message_seq) - Number(b.message_seq));
  for (const row of updated) await emit(row.message_id);
}
