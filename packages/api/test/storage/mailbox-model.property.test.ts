import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  asAgentId,
  asRunId,
  buildTurnInput,
  decideMessage,
  decideRequests,
  type Job,
  type JobId,
  JobPhase,
  type Member,
  MessageDelivery,
  type MessageId,
  type Team,
  TeamStatus,
  toTimestamp,
  transition,
} from '@agent-teams/core';
import { SequentialIds } from '@agent-teams/testkit';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-mailbox-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the model does: sends, requests, admission passes, finished turns and store restarts. */
type Action =
  | { readonly type: 'send'; readonly from: number; readonly key: number }
  | { readonly type: 'request'; readonly to: number }
  | { readonly type: 'admit' }
  | { readonly type: 'finish' }
  | { readonly type: 'restart' };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: fc.constant('send' as const), from: fc.nat(3), key: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('request' as const), to: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.constant({ type: 'admit' as const }) },
  { weight: 2, arbitrary: fc.constant({ type: 'finish' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'restart' as const }) },
);

/** One run of the model against a SQLite file, restarted (closed and reopened) when told. */
class MailboxModel {
  readonly ids = new SequentialIds();
  #ms = Date.parse('2026-01-01T00:00:00.000Z');
  store!: KyselyTeamStore;
  team!: Team;
  members: Member[] = [];
  /** Every turn admission froze, in admission order, with the messages its input names. */
  readonly frozen: { readonly job: JobId; readonly member: string; readonly messages: readonly MessageId[] }[] = [];
  /** Every message stored, with its recipients. */
  readonly sent = new Map<MessageId, readonly string[]>();

  constructor(readonly file: string) {}

  now(): string {
    this.#ms += 1_000;
    return toTimestamp(this.#ms);
  }

  async open(): Promise<void> {
    this.store = await KyselyTeamStore.open(this.file, { ids: this.ids });
  }

  async start(): Promise<void> {
    await this.open();
    const members = ['A', 'B', 'C'].map((name) => ({
      id: this.ids.memberId(),
      name,
      agentId: asAgentId('researcher'),
      conversationId: this.ids.conversationId(),
    }));
    const id = this.ids.teamId();
    const newTeam = {
      id,
      owner: 'alice' as Team['owner'],
      clientRequestId: 'c',
      fingerprint: 'f',
      name: 'T',
      goal: 'G',
    };
    await this.store.createTeam({ ...newTeam, members }, { now: this.now(), maxTeams: 20 });
    this.team = await this.store.setTeamStatus(id, TeamStatus.READY, this.now());
    this.members = [...(await this.store.listMembers([id]))];
  }

  /** A send whose content follows from (sender, key), so a repeated pair is a true retry. */
  async send(from: number, key: number): Promise<void> {
    const sender = this.members[from] ?? null;
    const mask = ((key * 3 + from) % 7) + 1;
    const to = this.members.filter((m, i) => (mask >> i) & 1 && m !== sender);
    if (to.length === 0) return;
    const now = this.now();
    const plan = {
      id: this.ids.messageId(),
      senderId: sender?.id ?? null,
      key: `k${key}`,
      recipientIds: to.map((m) => m.id),
      text: `from ${from} key ${key}`,
      delivery: key % 2 === 0 ? MessageDelivery.FOLLOW_UP : MessageDelivery.QUIET,
      jobIds: new Map(to.map((m) => [m.id, this.ids.jobId()])),
      now,
    };
    const sent = await this.store.sendMessage({
      owner: this.team.owner,
      teamId: this.team.id,
      senderId: plan.senderId,
      key: plan.key,
      recipientIds: plan.recipientIds,
      now,
      decide: (snapshot) => decideMessage(plan, snapshot),
    });
    this.sent.set(sent.message.id, sent.message.recipientIds);
  }

  async request(to: number): Promise<void> {
    const member = this.members[to];
    if (member === undefined) return;
    const recipient = {
      memberId: member.id,
      conversationId: member.conversationId,
      jobId: this.ids.jobId(),
      recordId: this.ids.recordId(),
    };
    const clientKey = `r${recipient.jobId}`;
    const plan = {
      recipients: [recipient],
      text: '!reply ok',
      clientKey,
      requester: { memberId: null, conversationId: null },
      chain: null,
    };
    await this.store.enqueueRequests({
      owner: this.team.owner,
      teamId: this.team.id,
      keys: [{ requesterConversationId: null, clientKey, memberId: member.id }],
      roots: [],
      now: this.now(),
      decide: (snapshot) => decideRequests(plan, snapshot),
    });
  }

  async admit(): Promise<void> {
    const now = this.now();
    const admitted = await this.store.admit({
      now,
      plan: (snapshot) => ({ admit: snapshot.candidates.map((c) => c.jobId), round: snapshot.round }),
      freeze: (ctx) =>
        transition(ctx.job, { type: 'FREEZE', input: buildTurnInput(ctx), runKey: ctx.job.id }, { now, ids: this.ids }),
    });
    for (const { job } of admitted) {
      this.frozen.push({
        job: job.id,
        member: String(job.memberId),
        messages: (job.input?.messages ?? []).map((m) => m.id),
      });
    }
  }

  /** Finishes every started turn (as the scheduler would after the runtime answered). */
  async finish(): Promise<void> {
    const active = await this.store.listActiveJobs();
    for (const job of active.filter((j) => j.phase === JobPhase.ADMITTING)) {
      const step = async (decide: (j: Job) => ReturnType<typeof transition>) =>
        this.store.updateJob(job.id, decide, { now: this.now() });
      const tctx = { now: this.now(), ids: this.ids };
      await step((j) => transition(j, { type: 'ACKNOWLEDGE', runId: asRunId(`run_${j.id}`) }, tctx));
      await step((j) => transition(j, { type: 'COMPLETE', answer: 'ok' }, tctx));
    }
  }

  /** Closes and reopens the store, then checks that every frozen turn still names the same messages. */
  async restart(): Promise<void> {
    await this.store.close();
    await this.open();
    const jobs = await this.store.findJobs(this.frozen.map((f) => f.job));
    for (const turn of this.frozen) {
      const job = jobs.find((j) => j.id === turn.job);
      expect((job?.input?.messages ?? []).map((m) => m.id)).toEqual(turn.messages);
    }
  }

  /** Runs turns until every copy is delivered: each recipient with mail gets a request. */
  async drain(): Promise<void> {
    for (let round = 0; round < 10; round += 1) {
      await this.finish();
      await this.admit();
      await this.finish();
      let waiting = false;
      for (const [index, member] of this.members.entries()) {
        if ((await this.store.undeliveredMessages(member.id)).length > 0) {
          waiting = true;
          await this.request(index);
        }
      }
      if (!waiting && (await this.store.listActiveJobs()).length === 0) return;
    }
  }
}

describe('the mailbox as a model (random sends, turns and restarts of a SQLite store)', () => {
  it('delivers every copy into exactly one turn of its recipient, in order, across restarts', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 25 }), async (actions) => {
        run += 1;
        const model = new MailboxModel(join(dir, `run-${run}.sqlite`));
        await model.start();
        try {
          for (const step of actions) {
            if (step.type === 'send') await model.send(step.from, step.key);
            else if (step.type === 'request') await model.request(step.to);
            else await model[step.type]();
          }
          await model.drain();
          const seqOf = new Map((await model.store.findMessages([...model.sent.keys()])).map((m) => [m.id, m.seq]));
          for (const member of model.members) {
            const expected = [...model.sent].filter(([, to]) => to.includes(member.id)).map(([id]) => id);
            const received = model.frozen.filter((t) => t.member === member.id).flatMap((t) => t.messages);
            // No loss, no duplicate, and in send order.
            expect([...received].sort()).toEqual([...expected].sort());
            expect(received.map((id) => seqOf.get(id))).toEqual(
              [...received.map((id) => seqOf.get(id))].sort((a, b) => Number(a) - Number(b)),
            );
          }
          const deliveries = await model.store.messageDeliveries([...model.sent.keys()]);
          for (const d of deliveries) {
            const turn = model.frozen.find((t) => t.job === d.jobId);
            expect(turn?.messages).toContain(d.messageId);
          }
        } finally {
          await model.store.close();
        }
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
