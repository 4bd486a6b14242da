import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, expectData, SEND_REQUEST, sendRequest } from './fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack } from './graphql-stack.js';

let stack: GraphqlStack;
beforeAll(async () => {
  stack = await createGraphqlStack();
});
afterAll(async () => stack.close());

describe('a request end to end over GraphQL', () => {
  it('runs a request on the scripted runtime and shows "<member>: <text>" as the result', async () => {
    const team = await createTeam(stack);
    const ada = team.members[0];
    if (!ada) throw new Error('no member');
    const [jobId] = await sendRequest(stack, team.id, [ada.id], 'Find the sources\nsecond line');
    const job = await stack.waitForJob(String(jobId), ['COMPLETED', 'FAILED']);
    expect(job.status).toBe('COMPLETED');
    expect(job.result).toEqual({ available: true, text: 'Ada: Find the sources' });
  });

  it('shows the job with its team, member, person requester and no receipt', async () => {
    const team = await createTeam(stack);
    const [jobId] = await sendRequest(stack, team.id, [String(team.members[1]?.id)], 'Write it');
    await stack.waitForJob(String(jobId), ['COMPLETED']);
    const data = expectData(
      await stack.gql(
        `query($id: ID!) { job(id: $id) { kind team { id } member { name } requester { member { id } }
           parent { id } receipt { id } rootId input { kind } startedAt finishedAt } }`,
        { id: jobId },
      ),
    );
    expect(data.job).toMatchObject({
      kind: 'REQUEST',
      team: { id: team.id },
      member: { name: 'Bob' },
      requester: { member: null },
      parent: null,
      receipt: null,
      rootId: jobId,
      input: null,
    });
    expect((data.job as { finishedAt: string | null }).finishedAt).not.toBeNull();
  });

  it('sends one request per recipient, in order', async () => {
    const team = await createTeam(stack);
    const response = await stack.gql(SEND_REQUEST, {
      input: {
        teamId: team.id,
        memberIds: team.members.map((m) => m.id).reverse(),
        text: 'Both',
        clientRequestId: 'both-1',
      },
    });
    const jobs = (expectData(response).sendRequest as { jobs: { member: { name: string } }[] }).jobs;
    expect(jobs.map((job) => job.member.name)).toEqual(['Bob', 'Ada']);
  });

  it('refuses the 101st request of a team with REQUEST_LIMIT', async () => {
    const team = await createTeam(stack);
    const memberIds = team.members.map((m) => m.id);
    // 50 sends to both members = 100 requests.
    for (let i = 0; i < 50; i++) await sendRequest(stack, team.id, memberIds, `job ${i}`);
    const response = await stack.gql(SEND_REQUEST, {
      input: { teamId: team.id, memberIds: [memberIds[0]], text: 'one too many', clientRequestId: 'over' },
    });
    expect(codes(response)).toEqual(['REQUEST_LIMIT']);
    const capacity = expectData(
      await stack.gql('query($id: ID!) { team(id: $id) { capacity { requests requestLimit } } }', { id: team.id }),
    );
    expect(capacity.team).toEqual({ capacity: { requests: 100, requestLimit: 100 } });
  });
});
