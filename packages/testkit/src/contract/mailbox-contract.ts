import {
  buildTurnInput,
  decideMessage,
  type FreezeContext,
  JobKind,
  JobPhase,
  type MailboxSnapshot,
  type Member,
  MessageDelivery,
  type SentMessage,
  type Team,
  TeamEventKind,
  transition,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, at, BOB, expectCode, type StoreHarness } from './store-harness.js';

/** Options of {@link sendTeamMessage}. */
export interface TestMessage {
  readonly from?: Member | null;
  readonly key?: string;
  readonly text?: string;
  readonly delivery?: MessageDelivery;
  readonly owner?: string;
  /** Receives the snapshot the store decided on. */
  readonly seen?: MailboxSnapshot[];
}

/** Sends a message through the store with the core's own decision (ids minted by the harness). */
export function sendTeamMessage(h: StoreHarness, team: Team, to: readonly Member[], opts: TestMessage = {}) {
  const now = h.now();
  const recipientIds = to.map((m) => m.id);
  const plan = {
    id: h.ids.messageId(),
    senderId: opts.from?.id ?? null,
    key: opts.key ?? `key-${h.ids.count('message') + 1}`,
    recipientIds,
    text: opts.text ?? 'hello',
    delivery: opts.delivery ?? MessageDelivery.QUIET,
    jobIds: new Map(to.map((m) => [m.id, h.ids.jobId()])),
    now,
  };
  return h.store.sendMessage({
    owner: (opts.owner ?? team.owner) as Team['owner'],
    teamId: team.id,
    senderId: plan.senderId,
    key: plan.key,
    recipientIds,
    now,
    decide: (snapshot) => {
      opts.seen?.push(snapshot);
      return decideMessage(plan, snapshot);
    },
  });
}

/** One admission pass that admits every candidate and freezes each turn with the core's input. */
export function admitWithMailbox(h: StoreHarness, contexts: FreezeContext[] = []) {
  const now = h.now();
  return h.store.admit({
    now,
    plan: (snapshot) => ({ admit: snapshot.candidates.map((c) => c.jobId), round: { rotation: [], served: [] } }),
    freeze: (ctx) => {
      contexts.push(ctx);
      const tctx = { now, ids: h.ids };
      return transition(ctx.job, { type: 'FREEZE', input: buildTurnInput(ctx), runKey: ctx.job.id }, tctx);
    },
  });
}

const idsOf = (sent: readonly SentMessage[]) => sent.map((s) => s.message.id);

/** Contract cases of `Mailbox`: messages as data, delivered into exactly one turn by admission. */
export function describeMailboxCases(h: () => StoreHarness): void {
  describe('mailbox', () => {
    it('stores a message with one undelivered copy per recipient and publishes MESSAGE_SENT after commit', async () => {
      const { team, members } = await h().team();
      const [a, b, c] = [at(members, 0), at(members, 1), at(members, 2)];
      const sent = await sendTeamMessage(h(), team, [b, c], { from: a, text: 'status?' });
      expect(sent.replayed).toBe(false);
      expect(sent.message).toMatchObject({ teamId: team.id, fromMemberId: a.id, recipientIds: [b.id, c.id] });
      expect(sent.deliveries).toEqual([
        { messageId: sent.message.id, memberId: b.id, jobId: null },
        { messageId: sent.message.id, memberId: c.id, jobId: null },
      ]);
      expect(idsOf([sent])).toEqual((await h().store.undeliveredMessages(b.id)).map((m) => m.id));
      expect(await h().store.undeliveredMessages(a.id)).toEqual([]);
      expect(h().publishedEvents.at(-1)).toMatchObject({
        kind: TeamEventKind.MESSAGE_SENT,
        messageId: sent.message.id,
      });
      const logged = await h().store.readEvents(team.id, 0, 100);
      expect(logged.at(-1)).toMatchObject({ kind: TeamEventKind.MESSAGE_SENT, messageId: sent.message.id });
    });

    it('changes nothing on a retry with the same sender and key, and refuses other content under it', async () => {
      const { team, members } = await h().team();
      const first = await sendTeamMessage(h(), team, [at(members, 1)], { from: at(members, 0), key: 'm1' });
      const events = h().publishedEvents.length;
      const again = await sendTeamMessage(h(), team, [at(members, 1)], { from: at(members, 0), key: 'm1' });
      expect(again).toMatchObject({ replayed: true, message: first.message });
      expect(h().publishedEvents.length).toBe(events);
      await expectCode(
        sendTeamMessage(h(), team, [at(members, 1)], { from: at(members, 0), key: 'm1', text: 'other' }),
        'IDEMPOTENCY_CONFLICT',
      );
      // The same key from another sender is another message.
      const other = await sendTeamMessage(h(), team, [at(members, 1)], { key: 'm1' });
      expect(other.message.id).not.toBe(first.message.id);
      const page = await h().store.pageMessages(team.id, { first: 10, afterSeq: null });
      expect(page.items.map((m) => m.id)).toEqual([first.message.id, other.message.id]);
    });

    it('pages a team’s messages oldest first and finds them by id', async () => {
      const { team, members } = await h().team();
      const sent = [];
      for (let i = 0; i < 3; i += 1) sent.push(await sendTeamMessage(h(), team, [at(members, 1)]));
      const first = await h().store.pageMessages(team.id, { first: 2, afterSeq: null });
      expect(first.items.map((m) => m.id)).toEqual(idsOf(sent).slice(0, 2));
      expect(first.hasNextPage).toBe(true);
      const rest = await h().store.pageMessages(team.id, { first: 2, afterSeq: at(first.items, 1).seq });
      expect(rest).toMatchObject({
        hasNextPage: false,
        items: [expect.objectContaining({ id: at(sent, 2).message.id })],
      });
      expect((await h().store.findMessages([at(sent, 2).message.id, at(sent, 0).message.id])).map((m) => m.id)).toEqual(
        [at(sent, 2).message.id, at(sent, 0).message.id],
      );
    });

    it('shows the decision the undelivered counts and the recipients with a queued turn', async () => {
      const { team, members } = await h().team();
      const [a, b, c] = [at(members, 0), at(members, 1), at(members, 2)];
      await sendTeamMessage(h(), team, [b]);
      await sendTeamMessage(h(), team, [b]);
      await h().send(team, [c]);
      const seen: MailboxSnapshot[] = [];
      await sendTeamMessage(h(), team, [b, c], { from: a, seen });
      expect(at(seen, 0).undelivered.get(b.id)).toBe(2);
      expect(at(seen, 0).undelivered.get(c.id) ?? 0).toBe(0);
      expect([...at(seen, 0).queuedTurn]).toEqual([c.id]);
      expect(at(seen, 0).members.map((m) => m.id)).toEqual(members.map((m) => m.id));
    });

    it('queues one MESSAGE job for a follow-up to a recipient without a queued turn', async () => {
      const { team, members } = await h().team();
      const [b, c] = [at(members, 1), at(members, 2)];
      const [request] = await h().send(team, [c]);
      await sendTeamMessage(h(), team, [b, c], { delivery: MessageDelivery.FOLLOW_UP, from: at(members, 0) });
      const jobs = (await h().store.listJobs(team.id, {}, { first: 50, afterSeq: null })).items;
      const messageJobs = jobs.filter((j) => j.kind === JobKind.MESSAGE);
      expect(messageJobs).toEqual([
        expect.objectContaining({ memberId: b.id, conversationId: b.conversationId, phase: JobPhase.QUEUED }),
      ]);
      expect(jobs.filter((j) => j.memberId === c.id).map((j) => j.id)).toEqual([request?.id]);
      // A second follow-up joins the queued MESSAGE turn.
      await sendTeamMessage(h(), team, [b], { delivery: MessageDelivery.FOLLOW_UP });
      const after = (await h().store.listJobs(team.id, { kind: JobKind.MESSAGE }, { first: 50, afterSeq: null })).items;
      expect(after.map((j) => j.id)).toEqual(messageJobs.map((j) => j.id));
    });

    it('queues the MESSAGE turn a follow-up counted on when the queued turn it joined is cancelled', async () => {
      const { team, members } = await h().team();
      const b = at(members, 1);
      const [request] = await h().send(team, [b]);
      if (request === undefined) throw new Error('no request');
      await sendTeamMessage(h(), team, [b], { delivery: MessageDelivery.FOLLOW_UP });
      const messageJobs = async () =>
        (await h().store.listJobs(team.id, { kind: JobKind.MESSAGE }, { first: 10, afterSeq: null })).items;
      expect(await messageJobs()).toEqual([]);
      const tctx = { now: h().now(), ids: h().ids };
      await h().store.updateJob(request.id, (job) => transition(job, { type: 'CANCEL' }, tctx), { now: h().now() });
      expect((await messageJobs()).map((j) => [j.memberId, j.phase])).toEqual([[b.id, JobPhase.QUEUED]]);
      // A quiet message alone promises no turn: cancelling another queued turn adds none.
      const { team: other, members: others } = await h().team();
      const [quietTurn] = await h().send(other, [at(others, 1)]);
      await sendTeamMessage(h(), other, [at(others, 1)]);
      if (quietTurn === undefined) throw new Error('no request');
      await h().store.updateJob(quietTurn.id, (job) => transition(job, { type: 'CANCEL' }, tctx), { now: h().now() });
      expect(
        (await h().store.listJobs(other.id, { kind: JobKind.MESSAGE }, { first: 10, afterSeq: null })).items,
      ).toEqual([]);
    });

    it('delivers every undelivered message into the turn admission freezes, in order, exactly once', async () => {
      const { team, members } = await h().team();
      const [a, b] = [at(members, 0), at(members, 1)];
      const one = await sendTeamMessage(h(), team, [b], { from: a, text: 'one' });
      const two = await sendTeamMessage(h(), team, [b], { text: 'two', delivery: MessageDelivery.FOLLOW_UP });
      const contexts: FreezeContext[] = [];
      const admitted = await admitWithMailbox(h(), contexts);
      const turn = at(admitted, 0).job;
      expect(turn).toMatchObject({ kind: JobKind.MESSAGE, memberId: b.id, phase: JobPhase.ADMITTING });
      expect(at(contexts, 0).mailbox?.map((m) => m.id)).toEqual(idsOf([one, two]));
      expect(turn.input?.messages).toEqual([
        { id: one.message.id, key: one.message.key, fromName: a.name, text: 'one' },
        { id: two.message.id, key: two.message.key, fromName: 'person', text: 'two' },
      ]);
      expect(await h().store.undeliveredMessages(b.id)).toEqual([]);
      expect(await h().store.messageDeliveries(idsOf([one, two]))).toEqual([
        { messageId: one.message.id, memberId: b.id, jobId: turn.id },
        { messageId: two.message.id, memberId: b.id, jobId: turn.id },
      ]);
      const delivered = h().publishedEvents.filter((e) => e.kind === TeamEventKind.MESSAGE_DELIVERED);
      expect(delivered.map((e) => [e.messageId, e.memberId, e.jobId])).toEqual([
        [one.message.id, b.id, turn.id],
        [two.message.id, b.id, turn.id],
      ]);
      // A later turn of the same member receives only what arrived since.
      await h().store.updateJob(turn.id, h().failWith(null), { now: h().now() });
      const three = await sendTeamMessage(h(), team, [b], { text: 'three', delivery: MessageDelivery.FOLLOW_UP });
      const next = at(await admitWithMailbox(h()), 0).job;
      expect(next.input?.messages?.map((m) => m.id)).toEqual(idsOf([three]));
      expect((await h().store.messageDeliveries([one.message.id])).map((d) => d.jobId)).toEqual([turn.id]);
    });

    it('leaves messages undelivered when the admitted turn does not name them', async () => {
      const { team, members } = await h().team();
      const sent = await sendTeamMessage(h(), team, [at(members, 1)]);
      await h().send(team, [at(members, 1)]);
      const now = h().now();
      await h().store.admit({
        now,
        plan: (snapshot) => ({ admit: snapshot.candidates.map((c) => c.jobId), round: { rotation: [], served: [] } }),
        freeze: (ctx) => h().freeze(ctx, now),
      });
      expect((await h().store.undeliveredMessages(at(members, 1).id)).map((m) => m.id)).toEqual([sent.message.id]);
    });

    it("answers NOT_FOUND for another owner's team and writes nothing", async () => {
      const { team, members } = await h().team({ owner: ALICE });
      await expectCode(sendTeamMessage(h(), team, [at(members, 1)], { owner: BOB }), 'NOT_FOUND');
      expect((await h().store.pageMessages(team.id, { first: 10, afterSeq: null })).items).toEqual([]);
    });
  });
}
