import {
  buildTurnInput,
  ErrorCode,
  type Job,
  JobKind,
  JobPhase,
  Limits,
  MessageDelivery,
  nowTimestamp,
  TeamStatus,
  transition,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { alice, bob, expectCode, type Harness, harness, leadTeam, limitSamples, sendOne } from './core-harness.js';

/** Admits every candidate, freezing each turn with the core's own input (mailbox included). */
async function admitAll(h: Harness): Promise<readonly Job[]> {
  const now = nowTimestamp(h.clock);
  const admitted = await h.store.admit({
    now,
    plan: (snapshot) => ({ admit: snapshot.candidates.map((c) => c.jobId), round: snapshot.round }),
    freeze: (ctx) =>
      transition(ctx.job, { type: 'FREEZE', input: buildTurnInput(ctx), runKey: ctx.job.id }, { now, ids: h.ids }),
  });
  return admitted.map((a) => a.job);
}

const send = (
  h: Harness,
  teamId: string,
  memberIds: string[],
  extra: Partial<{ text: string; delivery: string; clientRequestId: string }> = {},
) => h.core.messages.send(alice, { teamId, memberIds, text: 'hi', delivery: 'QUIET', clientRequestId: 'm1', ...extra });

describe('messages.send (a person)', () => {
  it('stores a quiet message in each recipient’s mailbox without starting a turn', async () => {
    const h = harness();
    const { team, scout, critic } = await leadTeam(h);
    const message = await send(h, team.id, [scout.id, critic.id]);
    expect(message).toMatchObject({
      fromMemberId: null,
      recipientIds: [scout.id, critic.id],
      delivery: MessageDelivery.QUIET,
    });
    expect((await h.core.messages.mailbox(scout.id)).map((m) => m.id)).toEqual([message.id]);
    expect((await h.store.listJobs(team.id, {}, { first: 10, afterSeq: null })).items).toEqual([]);
    expect((await h.core.messages.list(team, {})).edges.map((e) => e.node.id)).toEqual([message.id]);
  });

  it('queues one MESSAGE turn for follow-ups and delivers them into it, in order, as "Team message …" entries', async () => {
    const h = harness();
    const { team, scout } = await leadTeam(h);
    const first = await send(h, team.id, [scout.id], { delivery: 'FOLLOW_UP', text: 'one' });
    await send(h, team.id, [scout.id], { delivery: 'FOLLOW_UP', text: 'two', clientRequestId: 'm2' });
    const [turn] = await admitAll(h);
    expect(turn).toMatchObject({ kind: JobKind.MESSAGE, memberId: scout.id, phase: JobPhase.ADMITTING });
    expect(turn?.input?.kind).toBe('message');
    expect(turn?.input?.messages?.map((m) => [m.key, m.fromName, m.text])).toEqual([
      ['m1', 'person', 'one'],
      ['m2', 'person', 'two'],
    ]);
    expect(await h.core.messages.mailbox(scout.id)).toEqual([]);
    expect((await h.core.load.messages([first.id]))[0]?.text).toBe('one');
  });

  it('is idempotent by clientRequestId and refuses the key for other content', async () => {
    const h = harness();
    const { team, scout } = await leadTeam(h);
    const first = await send(h, team.id, [scout.id]);
    expect((await send(h, team.id, [scout.id])).id).toBe(first.id);
    await expectCode(() => send(h, team.id, [scout.id], { text: 'other' }), ErrorCode.IDEMPOTENCY_CONFLICT);
  });

  it('refuses a full mailbox, another owner and a closed team, writing nothing', async () => {
    const h = harness();
    const { team, scout, critic } = await leadTeam(h);
    for (let i = 0; i < Limits.mailboxUndelivered; i += 1)
      await send(h, team.id, [scout.id], { clientRequestId: `k${i}` });
    const details = await expectCode(
      () => send(h, team.id, [scout.id, critic.id], { clientRequestId: 'full' }),
      ErrorCode.MAILBOX_FULL,
    );
    expect(details).toMatchObject({ limit: 64, member: 'Scout' });
    // Nothing of a refused send is written: the critic's mailbox stays empty.
    expect(await h.core.messages.mailbox(critic.id)).toEqual([]);
    await expectCode(
      () =>
        h.core.messages.send(bob, {
          teamId: team.id,
          memberIds: [critic.id],
          text: 'x',
          delivery: 'QUIET',
          clientRequestId: 'b',
        }),
      ErrorCode.NOT_FOUND,
    );
    await h.store.setTeamStatus(team.id, TeamStatus.CLOSED, nowTimestamp(h.clock));
    await expectCode(() => send(h, team.id, [critic.id], { clientRequestId: 'closed' }), ErrorCode.TEAM_CLOSED);
    // A retry of a message sent before the team closed still answers it.
    expect((await send(h, team.id, [scout.id], { clientRequestId: 'k0' })).recipientIds).toEqual([scout.id]);
  });

  it.each(limitSamples(Limits.messageText))('text $label: accepted = $ok', async ({ value, ok }) => {
    const h = harness();
    const { team, scout } = await leadTeam(h);
    if (ok) {
      expect((await send(h, team.id, [scout.id], { text: value })).text).toBe(value);
    } else {
      const details = await expectCode(() => send(h, team.id, [scout.id], { text: value }), ErrorCode.INVALID_INPUT);
      expect(details).toEqual({ field: 'text', maxChars: 4_000, maxBytes: 8_000 });
    }
  });

  it.each(['\uD800 lone high', 'lone low \uDC00', 'nul \u0000'])('refuses unstorable text %#', async (text) => {
    const h = harness();
    const { team, scout } = await leadTeam(h);
    await expectCode(() => send(h, team.id, [scout.id], { text }), ErrorCode.INVALID_INPUT);
  });

  it('refuses a bad delivery and bad recipient lists', async () => {
    const h = harness();
    const { team, scout } = await leadTeam(h);
    await expectCode(() => send(h, team.id, [scout.id], { delivery: 'LOUD' }), ErrorCode.INVALID_INPUT);
    await expectCode(() => send(h, team.id, []), ErrorCode.INVALID_INPUT);
    await expectCode(() => send(h, team.id, [scout.id, scout.id]), ErrorCode.INVALID_INPUT);
    await expectCode(() => send(h, team.id, ['member_404']), ErrorCode.NOT_FOUND);
  });
});

describe('messages.list (Team.messages)', () => {
  it('walks every message once, oldest first, and refuses a cursor of another list (INVALID_INPUT)', async () => {
    const h = harness();
    const { team, scout } = await leadTeam(h);
    const sent = [];
    for (let i = 0; i < 5; i += 1) sent.push((await send(h, team.id, [scout.id], { clientRequestId: `p${i}` })).id);
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await h.core.messages.list(team, { first: 2, after });
      seen.push(...page.edges.map((edge) => edge.node.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(sent);
    await sendOne(h, team.id, scout.id, 'a job, for a cursor of another list');
    const foreign = (await h.core.jobs.list(team, { first: 1 })).pageInfo.endCursor;
    expect(foreign).toEqual(expect.any(String));
    await expectCode(() => h.core.messages.list(team, { after: foreign }), ErrorCode.INVALID_INPUT);
    await expectCode(() => h.core.messages.list(team, { first: 0 }), ErrorCode.INVALID_INPUT);
  });
});
