import { NO_USAGE, type UsageScope, usageScopeKey } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_GRAPHQL_INT } from '../../src/schema/saturated-int.js';
import { createTeam, expectData, sendRequest } from '../graphql/fixtures.js';
import { createGraphqlStack, type GraphqlStack } from '../graphql/graphql-stack.js';

const USAGE = 'inputTokens cachedInputTokens outputTokens cost calls';
const QUERY = `query($id: ID!) { job(id: $id) { usage { ${USAGE} } chainUsage { ${USAGE} }
  member { usage { ${USAGE} } } team { usage { ${USAGE} } members { usage { ${USAGE} } } } } }`;

/** Totals that name their scope: inputTokens encodes the kind, outputTokens the position asked. */
const asked: string[] = [];
const marker = (scope: UsageScope) => {
  asked.push(usageScopeKey(scope));
  const kind = { job: 1, chain: 2, conversation: 3, team: 4 }[scope.kind];
  return {
    ...NO_USAGE,
    inputTokens: kind,
    cachedInputTokens: kind * 100,
    outputTokens: kind * 10,
    cost: kind / 4,
    calls: kind,
  };
};

describe('usage over GraphQL', () => {
  let real: GraphqlStack;
  let fake: GraphqlStack;
  beforeAll(async () => {
    real = await createGraphqlStack();
    fake = await createGraphqlStack({
      core: (core) => ({ ...core, usage: { totals: async (scopes) => scopes.map(marker) } }),
    });
  });
  afterAll(async () => {
    await real.close();
    await fake.close();
  });

  it('answers zero usage for a scripted job (no model calls)', async () => {
    const team = await createTeam(real);
    const [jobId] = await sendRequest(real, team.id, [String(team.members[0]?.id)], 'Hello');
    await real.waitForJob(String(jobId), ['COMPLETED']);
    const data = expectData(await real.gql(QUERY, { id: jobId })) as { job: Record<string, unknown> };
    const zero = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, cost: 0, calls: 0 };
    expect(data.job).toEqual({
      usage: zero,
      chainUsage: zero,
      member: { usage: zero },
      team: { usage: zero, members: [{ usage: zero }, { usage: zero }] },
    });
  });

  it('asks the core for the job, its chain root, the member conversation and the team', async () => {
    const team = await createTeam(fake);
    const member = team.members[0];
    const [jobId] = await sendRequest(fake, team.id, [String(member?.id)], 'Hello');
    asked.length = 0;
    const data = expectData(await fake.gql(QUERY, { id: jobId })) as {
      job: {
        usage: { inputTokens: number; cachedInputTokens: number };
        chainUsage: { inputTokens: number; cachedInputTokens: number };
        member: { usage: { inputTokens: number; cachedInputTokens: number } };
        team: { usage: { inputTokens: number; cachedInputTokens: number } };
      };
    };
    expect(
      [data.job.usage, data.job.chainUsage, data.job.member.usage, data.job.team.usage].map((u) => u.inputTokens),
    ).toEqual([1, 2, 3, 4]);
    expect(
      [data.job.usage, data.job.chainUsage, data.job.member.usage, data.job.team.usage].map((u) => u.cachedInputTokens),
    ).toEqual([100, 200, 300, 400]);
    const conversations = (await fake.core.teams.members([team.id as never])).map(
      (m) => `conversation:${m.conversationId}`,
    );
    expect(asked).toEqual(
      expect.arrayContaining([`job:${jobId}`, `chain:${jobId}`, `team:${team.id}`, ...conversations]),
    );
  });

  it("answers a sum above GraphQL's Int as its largest value, at n − 1, n and n + 1, instead of failing", async () => {
    const sums = [MAX_GRAPHQL_INT - 1, MAX_GRAPHQL_INT, MAX_GRAPHQL_INT + 1, 3e12];
    const big = await createGraphqlStack({
      core: (core) => ({
        ...core,
        usage: {
          totals: async (scopes) =>
            scopes.map((scope) => {
              const n = sums[{ job: 0, chain: 1, conversation: 2, team: 3 }[scope.kind]] as number;
              return { inputTokens: n, cachedInputTokens: n, outputTokens: n, cost: n, calls: n };
            }),
        },
      }),
    });
    try {
      const team = await createTeam(big);
      const [jobId] = await sendRequest(big, team.id, [String(team.members[0]?.id)], 'Hello');
      const data = expectData(await big.gql(QUERY, { id: jobId })) as {
        job: { usage: unknown; chainUsage: unknown; member: { usage: unknown }; team: { usage: unknown } };
      };
      const at = (n: number) => ({ inputTokens: n, cachedInputTokens: n, outputTokens: n, cost: n, calls: n });
      const { usage, chainUsage, member, team: teamOf } = data.job;
      expect([usage, chainUsage, member.usage, teamOf.usage]).toEqual([
        at(MAX_GRAPHQL_INT - 1),
        at(MAX_GRAPHQL_INT),
        { ...at(MAX_GRAPHQL_INT), cost: MAX_GRAPHQL_INT + 1 },
        { ...at(MAX_GRAPHQL_INT), cost: 3e12 },
      ]);
    } finally {
      await big.close();
    }
  });

  it("answers a team budget's used tokens above GraphQL's Int as its largest value, at n − 1, n and n + 1", async () => {
    let used = 0;
    const big = await createGraphqlStack({
      core: (core) => ({
        ...core,
        budgets: {
          ...core.budgets,
          teamBudgets: async (teamIds) =>
            teamIds.map(() => ({ maxTokens: null, maxCost: null, usedTokens: used, usedCost: used })),
        },
      }),
    });
    try {
      const team = await createTeam(big);
      const read = async (n: number) => {
        used = n;
        const data = expectData(
          await big.gql('query($id: ID!) { team(id: $id) { budget { usedTokens usedCost } } }', { id: team.id }),
        ) as { team: { budget: { usedTokens: number; usedCost: number } } };
        return data.team.budget;
      };
      expect(await read(MAX_GRAPHQL_INT - 1)).toEqual({
        usedTokens: MAX_GRAPHQL_INT - 1,
        usedCost: MAX_GRAPHQL_INT - 1,
      });
      expect(await read(MAX_GRAPHQL_INT)).toEqual({ usedTokens: MAX_GRAPHQL_INT, usedCost: MAX_GRAPHQL_INT });
      expect(await read(MAX_GRAPHQL_INT + 1)).toEqual({ usedTokens: MAX_GRAPHQL_INT, usedCost: MAX_GRAPHQL_INT + 1 });
      expect(await read(4e9)).toEqual({ usedTokens: MAX_GRAPHQL_INT, usedCost: 4e9 });
    } finally {
      await big.close();
    }
  });
});
