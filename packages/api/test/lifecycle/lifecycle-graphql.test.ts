import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, expectData, SEND_REQUEST, sendRequest } from '../graphql/fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { CLOSE, INTERRUPT, RETIRE, spawn, spawned } from './lifecycle-ops.js';

let stack: GraphqlStack;
beforeAll(async () => {
  stack = await createGraphqlStack();
});
afterAll(async () => stack.close());

const CONVERSATION =
  'query($id: ID!) { node(id: $id) { ... on Member { conversation { edges { node { role text } } } } } }';
const ROSTER = 'query($id: ID!) { team(id: $id) { status members { name status role isLead } } }';
const send = (teamId: string, memberId: string, text = 'hello') =>
  stack.gql(SEND_REQUEST, { input: { teamId, memberIds: [memberId], text, clientRequestId: `s-${Math.random()}` } });

describe('spawnMember (the owner acting as the lead)', () => {
  it('adds an addressable member at the end of the roster, once per clientRequestId', async () => {
    const team = await createTeam(stack);
    const first = spawned(await spawn(stack, team.id, 'Cy', { role: 'Reviews 研究 😀', clientRequestId: 'cy' }));
    expect(first).toMatchObject({ name: 'Cy', role: 'Reviews 研究 😀', isLead: false, status: 'IDLE' });
    const again = spawned(await spawn(stack, team.id, 'Cy', { role: 'Reviews 研究 😀', clientRequestId: 'cy' }));
    expect(again.id).toBe(first.id);
    expect(codes(await spawn(stack, team.id, 'Dee', { clientRequestId: 'cy' }))).toEqual(['IDEMPOTENCY_CONFLICT']);
    const roster = expectData(await stack.gql(ROSTER, { id: team.id })).team as { members: { name: string }[] };
    expect(roster.members.map((m) => m.name)).toEqual(['Ada', 'Bob', 'Cy']);
    const [jobId = ''] = await sendRequest(stack, team.id, [first.id], 'hi Cy');
    expect((await stack.waitForJob(jobId, ['COMPLETED'])).status).toBe('COMPLETED');
  });

  it('refuses a taken name, an unknown agent, a bad context and a ninth active member', async () => {
    const team = await createTeam(stack);
    expect(codes(await spawn(stack, team.id, 'Ada'))).toEqual(['DUPLICATE_MEMBER_NAME']);
    expect(codes(await spawn(stack, team.id, 'Cy', { agentId: 'nobody' }))).toEqual(['NOT_FOUND']);
    expect(codes(await spawn(stack, team.id, 'Cy', { context: 'clone' }))).toEqual(['INVALID_INPUT']);
    // 2 members now: 6 more reach the limit of 8 (n), the 7th is n+1.
    for (const name of ['M3', 'M4', 'M5', 'M6', 'M7', 'M8']) spawned(await spawn(stack, team.id, name));
    expect(codes(await spawn(stack, team.id, 'M9'))).toEqual(['MEMBER_COUNT']);
  });

  it("starts a forked member's conversation with the lead's completed turns; a fresh one starts empty", async () => {
    const team = await createTeam(stack, undefined, {
      members: [
        { name: 'Ada', agentId: 'researcher', lead: true },
        { name: 'Bob', agentId: 'writer' },
      ],
    });
    const [done = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], 'Collect the sources 研究');
    await stack.waitForJob(done, ['COMPLETED']);
    const conversation = async (id: string) => {
      const data = expectData(await stack.gql(CONVERSATION, { id })).node as {
        conversation: { edges: { node: { role: string; text: string } }[] };
      };
      return data.conversation.edges.map((e) => [e.node.role, e.node.text]);
    };
    const forked = spawned(await spawn(stack, team.id, 'Fork', { context: 'fork' }));
    expect(await conversation(forked.id)).toEqual([
      ['USER', 'Collect the sources 研究'],
      ['ASSISTANT', 'Ada: Collect the sources 研究'],
    ]);
    const fresh = spawned(await spawn(stack, team.id, 'Fresh', { context: 'fresh' }));
    expect(await conversation(fresh.id)).toEqual([]);
  });

  it('answers NOT_FOUND for another owner’s team', async () => {
    const team = await createTeam(stack, TOKENS.bob);
    expect(codes(await spawn(stack, team.id, 'Cy'))).toEqual(['NOT_FOUND']);
  });
});

describe('retireMember', () => {
  it('cancels the member’s running work, keeps its name taken and refuses new requests with MEMBER_RETIRED', async () => {
    const team = await createTeam(stack);
    const bob = String(team.members[1]?.id);
    const [running = ''] = await sendRequest(stack, team.id, [bob], '!sleep 60000');
    await stack.waitForJob(running, ['RUNNING']);
    const retired = expectData(await stack.gql(RETIRE, { id: bob })).retireMember as { member: { status: string } };
    expect(retired.member.status).toBe('RETIRED');
    expect((await stack.waitForJob(running, ['CANCELLED'])).status).toBe('CANCELLED');
    expect(codes(await send(team.id, bob))).toEqual(['MEMBER_RETIRED']);
    expect(codes(await spawn(stack, team.id, 'Bob'))).toEqual(['DUPLICATE_MEMBER_NAME']);
    const conversation = await stack.gql(
      'query($id: ID!) { node(id: $id) { ... on Member { conversation { edges { node { text } } } } } }',
      {
        id: bob,
      },
    );
    expect(conversation.errors).toEqual([]);
    // A retired member frees its place: 1 active + 7 spawned = 8.
    for (const name of ['R1', 'R2', 'R3', 'R4', 'R5', 'R6', 'R7']) spawned(await spawn(stack, team.id, name));
    expect(codes(await spawn(stack, team.id, 'R8'))).toEqual(['MEMBER_COUNT']);
  });

  it('answers NOT_FOUND for another owner’s member', async () => {
    const team = await createTeam(stack, TOKENS.bob);
    expect(codes(await stack.gql(RETIRE, { id: team.members[0]?.id }))).toEqual(['NOT_FOUND']);
  });
});

describe('closeTeam', () => {
  it('refuses new requests and spawns with TEAM_CLOSED, stays readable, and deleteTeam still works', async () => {
    const team = await createTeam(stack);
    const ada = String(team.members[0]?.id);
    const closed = expectData(await stack.gql(CLOSE, { id: team.id })).closeTeam as { team: { status: string } };
    expect(closed.team.status).toBe('CLOSED');
    expect(codes(await send(team.id, ada))).toEqual(['TEAM_CLOSED']);
    expect(codes(await spawn(stack, team.id, 'Cy'))).toEqual(['TEAM_CLOSED']);
    expect(expectData(await stack.gql(ROSTER, { id: team.id })).team).toMatchObject({ status: 'CLOSED' });
    const deleted = await stack.gql('mutation($id: ID!) { deleteTeam(input: { teamId: $id }) { deletedTeamId } }', {
      id: team.id,
    });
    expect(expectData(deleted).deleteTeam).toEqual({ deletedTeamId: team.id });
  });
});

describe('interruptMember', () => {
  it('ends the current turn with the reason as its error, and answers null for an idle member', async () => {
    const team = await createTeam(stack);
    const ada = String(team.members[0]?.id);
    const [jobId = ''] = await sendRequest(stack, team.id, [ada], '!sleep 60000');
    await stack.waitForJob(jobId, ['RUNNING']);
    const reason = 'Stop: the plan changed 中 😀';
    const answer = expectData(await stack.gql(INTERRUPT, { id: ada, reason })).interruptMember as {
      job: { id: string };
    };
    expect(answer.job.id).toBe(jobId);
    expect(await stack.waitForJob(jobId, ['CANCELLED'])).toMatchObject({ status: 'CANCELLED', error: reason });
    const idle = expectData(await stack.gql(INTERRUPT, { id: ada, reason })).interruptMember;
    expect(idle).toEqual({ job: null });
    expect(codes(await stack.gql(INTERRUPT, { id: ada, reason: ' ' }))).toEqual(['INVALID_INPUT']);
  });
});
