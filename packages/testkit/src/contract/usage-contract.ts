import { asConversationId, type Job, type JobId, type UsageEntry, usageScopeKey } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { at, type StoreHarness } from './store-harness.js';

/** Contract cases of `UsageLedger`: idempotent recording and totals per job, chain, member, team. */
export function describeUsageCases(h: () => StoreHarness): void {
  describe('model usage', () => {
    // `tokens`: input, output and, when given, the cached part of the input (absent: none).
    const entry = (id: string, job: Job, tokens: [number, number, number?], cost: number): UsageEntry => ({
      id,
      teamId: job.teamId,
      jobId: job.id,
      conversationId: job.conversationId,
      model: 'm',
      inputTokens: tokens[0],
      ...(tokens[2] === undefined ? {} : { cachedInputTokens: tokens[2] }),
      outputTokens: tokens[1],
      cost,
    });

    it('records a call once per id and sums it, its cached input tokens included, per job, chain, conversation and team', async () => {
      const { team, members } = await h().team();
      const other = await h().team();
      const [first] = await h().send(team, [at(members, 0)]);
      const root = first as Job;
      // A handoff from member 0 to member 1 joins the first job's chain.
      const handoffId = h().ids.jobId();
      const [handoff] = await h().store.enqueueRequests({
        owner: team.owner,
        teamId: team.id,
        keys: [{ requesterConversationId: root.conversationId, clientKey: 'handoff', memberId: at(members, 1).id }],
        roots: [root.id],
        now: h().now(),
        decide: () => ({
          insert: [
            {
              id: handoffId,
              recordId: h().ids.recordId(),
              memberId: at(members, 1).id,
              conversationId: at(members, 1).conversationId,
              requester: { memberId: at(members, 0).id, conversationId: root.conversationId },
              parentId: root.id,
              rootId: root.id,
              clientKey: 'handoff',
              text: 'Check it',
            },
          ],
          resultIds: [handoffId],
        }),
      });
      const [unrelated] = await h().send(other.team, [at(other.members, 0)]);
      await h().store.recordUsage(entry('u1', root, [100, 10], 0.5), h().now());
      await h().store.recordUsage(entry('u1', root, [100, 10], 0.5), h().now());
      await h().store.recordUsage(entry('u2', root, [200, 20, 150], 0.25), h().now());
      await h().store.recordUsage(entry('u3', handoff as Job, [1000, 100, 400], 1), h().now());
      await h().store.recordUsage(entry('u4', unrelated as Job, [7, 7, 7], 7), h().now());

      const scopes = [
        { kind: 'job', id: root.id },
        { kind: 'job', id: (handoff as Job).id },
        { kind: 'chain', id: root.id },
        { kind: 'conversation', id: at(members, 0).conversationId },
        { kind: 'conversation', id: asConversationId('conversation_none') },
        { kind: 'team', id: team.id },
      ] as const;
      const totals = await h().store.usageTotals(scopes);
      expect(scopes.map((scope) => totals.get(usageScopeKey(scope)))).toEqual([
        { inputTokens: 300, cachedInputTokens: 150, outputTokens: 30, cost: 0.75, calls: 2 },
        { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 100, cost: 1, calls: 1 },
        { inputTokens: 1300, cachedInputTokens: 550, outputTokens: 130, cost: 1.75, calls: 3 },
        { inputTokens: 300, cachedInputTokens: 150, outputTokens: 30, cost: 0.75, calls: 2 },
        { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, cost: 0, calls: 0 },
        { inputTokens: 1300, cachedInputTokens: 550, outputTokens: 130, cost: 1.75, calls: 3 },
      ]);
      expect((await h().store.usageTotals([])).size).toBe(0);
      expect(
        (await h().store.usageTotals([{ kind: 'chain', id: (unrelated as Job).id as JobId }])).get(
          usageScopeKey({ kind: 'chain', id: (unrelated as Job).id }),
        ),
      ).toEqual({ inputTokens: 7, cachedInputTokens: 7, outputTokens: 7, cost: 7, calls: 1 });
    });
  });
}
