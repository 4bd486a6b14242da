import { NO_USAGE, type UsageScope, usageScopeKey } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, expectData, sendRequest } from '../graphql/fixtures.js';
import { createGraphqlStack, type GraphqlStack } from '../graphql/graphql-stack.js';

const USAGE = 'inputTokens outputTokens cost calls';
const QUERY = `query($id: ID!) { job(id: $id) { usage { ${USAGE} } chainUsage { ${USAGE} }
  member { usage { ${USAGE} } } team { usage { ${USAGE} } members { usage { ${USAGE} } } } } }`;

/** Totals that name their scope: inputTokens encodes the kind, outputTokens the position asked. */
const asked: string[] = [];
const marker = (scope: UsageScope) => {
  asked.push(usageScopeKey(scope));
  const kind = { job: 1, chain: 2, conversation: 3, team: 4 }[scope.kind];
  return { ...NO_USAGE, inputTokens: kind, outputTokens: kind * 10, cost: kind / 4, calls: kind };
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
    const zero = { inputTokens: 0, outputTokens: 0, cost: 0, calls: 0 };
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
        usage: { inputTokens: number };
        chainUsage: { inputTokens: number };
        member: { usage: { inputTokens: number } };
        team: { usage: { inputTokens: number } };
      };
    };
    expect(
      [data.job.usage, data.job.chainUsage, data.job.member.usage, data.job.team.usage].map((u) => u.inputTokens),
    ).toEqual([1, 2, 3, 4]);
    const conversations = (await fake.core.teams.members([team.id as never])).map(
      (m) => `conversation:${m.conversationId}`,
    );
    expect(asked).toEqual(
      expect.arrayContaining([`job:${jobId}`, `chain:${jobId}`, `team:${team.id}`, ...conversations]),
    );
  });
});
