import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, expectData, sendRequest } from './fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack } from './graphql-stack.js';

let stack: GraphqlStack;
beforeAll(async () => {
  stack = await createGraphqlStack();
});
afterAll(async () => stack.close());

const CANCEL =
  'mutation($id: ID!) { cancelJob(input: {jobId: $id}) { alreadyFinished job { id status result { available text } } } }';
const ACTIVITY = `query($id: ID!, $revision: String) { team(id: $id) { revision activity(revision: $revision) {
  __typename ... on ActivityUnchanged { unchanged revision } ... on ActivityPage { revision jobs { totalCount edges { node { id } } } } } } }`;

type CancelPayload = {
  alreadyFinished: boolean;
  job: { status: string; result: { available: boolean; text: string | null } };
};
const cancel = async (id: string) => expectData(await stack.gql(CANCEL, { id })).cancelJob as CancelPayload;

describe('cancelJob', () => {
  it('ends a queued job at once, shows why it has no answer, and cancels a running one', async () => {
    const team = await createTeam(stack);
    const ada = String(team.members[0]?.id);
    // One job per conversation runs at a time: the second waits behind the sleeping first.
    const [running = '', queued = ''] = [
      ...(await sendRequest(stack, team.id, [ada], '!sleep 60000')),
      ...(await sendRequest(stack, team.id, [ada], 'later')),
    ];
    await stack.waitForJob(running, ['RUNNING']);
    expect((await stack.waitForJob(queued, ['QUEUED'])).status).toBe('QUEUED');

    const cancelledQueued = await cancel(queued);
    expect(cancelledQueued).toEqual({
      alreadyFinished: false,
      job: { id: queued, status: 'CANCELLED', result: { available: false, text: 'Cancelled before it started.' } },
    });

    const cancelledRunning = await cancel(running);
    expect(cancelledRunning.alreadyFinished).toBe(false);
    expect(['CANCELLING', 'CANCELLED']).toContain(cancelledRunning.job.status);
    const ended = await stack.waitForJob(running, ['CANCELLED']);
    expect(ended.result).toMatchObject({ available: false });
  });

  it('reports alreadyFinished for a finished job and changes nothing', async () => {
    const team = await createTeam(stack);
    const [jobId = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], 'quick');
    await stack.waitForJob(jobId, ['COMPLETED']);
    const payload = await cancel(jobId);
    expect(payload.alreadyFinished).toBe(true);
    expect(payload.job.status).toBe('COMPLETED');
    expect(payload.job.result.available).toBe(true);
  });
});

describe('deleteTeam', () => {
  it('refuses with PENDING_WORK while a job is unfinished, then deletes', async () => {
    const team = await createTeam(stack);
    const [jobId = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], '!sleep 60000');
    const DELETE = 'mutation($id: ID!) { deleteTeam(input: {teamId: $id}) { deletedTeamId } }';
    expect(codes(await stack.gql(DELETE, { id: team.id }))).toEqual(['PENDING_WORK']);

    await cancel(jobId);
    await stack.waitForJob(jobId, ['CANCELLED']);
    expect(expectData(await stack.gql(DELETE, { id: team.id }))).toEqual({ deleteTeam: { deletedTeamId: team.id } });
    expect(expectData(await stack.gql('query($id: ID!) { team(id: $id) { id } }', { id: team.id }))).toEqual({
      team: null,
    });
  });
});

describe('Team.activity', () => {
  it('answers ActivityUnchanged when the revision matches and a page after a change', async () => {
    const team = await createTeam(stack);
    const first = expectData(await stack.gql(ACTIVITY, { id: team.id })).team as {
      revision: string;
      activity: { __typename: string; revision: string };
    };
    expect(first.activity.__typename).toBe('ActivityPage');

    const same = expectData(await stack.gql(ACTIVITY, { id: team.id, revision: first.activity.revision })).team as {
      activity: unknown;
    };
    expect(same.activity).toEqual({
      __typename: 'ActivityUnchanged',
      unchanged: true,
      revision: first.activity.revision,
    });

    const [jobId = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], '!sleep 60000');
    const changed = expectData(await stack.gql(ACTIVITY, { id: team.id, revision: first.activity.revision })).team as {
      activity: { __typename: string; revision: string; jobs: { totalCount: number } };
    };
    expect(changed.activity.__typename).toBe('ActivityPage');
    expect(changed.activity.revision).not.toBe(first.activity.revision);
    expect(changed.activity.jobs.totalCount).toBe(1);
    await cancel(jobId);
  });
});

describe('Team.jobs and members', () => {
  it('filters jobs by status and shows member statuses from their jobs', async () => {
    const team = await createTeam(stack);
    const [ada = '', bob = ''] = team.members.map((m) => m.id);
    const [sleeping = ''] = await sendRequest(stack, team.id, [ada], '!sleep 60000');
    const [done = ''] = await sendRequest(stack, team.id, [bob], 'hello');
    await stack.waitForJob(sleeping, ['RUNNING']);
    await stack.waitForJob(done, ['COMPLETED']);
    const data = expectData(
      await stack.gql(
        `query($id: ID!) { team(id: $id) {
          running: jobs(statuses: [RUNNING]) { totalCount edges { node { id } } }
          none: jobs(statuses: []) { totalCount edges { node { id } } }
          all: jobs { totalCount }
          members { name status agent { name title } conversation { edges { node { role job { id } } } } } } }`,
        { id: team.id },
      ),
    ).team as Record<string, unknown>;
    expect(data.running).toEqual({ totalCount: 1, edges: [{ node: { id: sleeping } }] });
    // An empty list of statuses matches none of them (not "no filter").
    expect(data.none).toEqual({ totalCount: 0, edges: [] });
    expect(data.all).toEqual({ totalCount: 2 });
    const members = data.members as {
      name: string;
      status: string;
      agent: { name: string };
      conversation: { edges: unknown[] };
    }[];
    expect(members.map((m) => [m.name, m.status, m.agent.name])).toEqual([
      ['Ada', 'RUNNING', 'researcher'],
      ['Bob', 'IDLE', 'writer'],
    ]);
    await cancel(sleeping);
  });
});
