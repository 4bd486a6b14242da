import { asOwnerId } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, expectData } from '../graphql/fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack } from '../graphql/graphql-stack.js';
import { ASSIGN_TASK, CREATE_TASK, createTask, type TaskView, TEAM_TASKS } from './task-graphql.js';

const alice = asOwnerId('alice');
let stack: GraphqlStack;
beforeAll(async () => {
  stack = await createGraphqlStack({ scheduler: false });
});
afterAll(async () => stack.close());

const RETIRE = 'mutation($input: RetireMemberInput!) { retireMember(input: $input) { member { id } } }';
const CLOSE = 'mutation($input: CloseTeamInput!) { closeTeam(input: $input) { team { id status } } }';

async function tasksOf(teamId: string): Promise<TaskView[]> {
  const data = expectData(await stack.gql(TEAM_TASKS, { id: teamId, first: 10 }));
  return (data.team as { tasks: { edges: { node: TaskView }[] } }).tasks.edges.map((e) => e.node);
}

describe('claims given back by retire and close', () => {
  it('opens a retired member’s tasks, then every claim when the team closes, each with its reason', async () => {
    const team = await createTeam(stack, undefined, {
      members: [
        { name: 'Ada', agentId: 'researcher' },
        { name: 'Bob', agentId: 'writer' },
        { name: 'Cy', agentId: 'writer' },
      ],
    });
    const [ada, bob] = team.members;
    const a = await createTask(stack, team.id, { title: 'Ada’s' });
    const b = await createTask(stack, team.id, { title: 'Bob’s' });
    await stack.gql(ASSIGN_TASK, { input: { taskId: a.id, expectedRevision: 1, memberId: ada?.id } });
    await stack.gql(ASSIGN_TASK, { input: { taskId: b.id, expectedRevision: 1, memberId: bob?.id } });
    const before = (await stack.core.teams.get(alice, team.id))?.lastEventSeq ?? 0;

    expect(codes(await stack.gql(RETIRE, { input: { memberId: ada?.id } }))).toEqual([]);
    expect((await tasksOf(team.id)).map((t) => [t.title, t.status, t.owner, t.revision])).toEqual([
      ['Ada’s', 'OPEN', null, 3],
      ['Bob’s', 'CLAIMED', { name: 'Bob' }, 2],
    ]);
    expect(codes(await stack.gql(CLOSE, { input: { teamId: team.id } }))).toEqual([]);
    expect((await tasksOf(team.id)).map((t) => [t.status, t.owner])).toEqual([
      ['OPEN', null],
      ['OPEN', null],
    ]);
    const events = await stack.core.events.read(alice, team.id, before, 100);
    const released = events.filter((e) => e.kind === 'TASK_CHANGED').map((e) => [e.taskId, e.reason]);
    expect(released).toEqual([
      [a.id, expect.stringContaining('Ada')],
      [b.id, expect.stringContaining('closed')],
    ]);
    const refused = await stack.gql(CREATE_TASK, {
      input: { teamId: team.id, title: 'Late', clientRequestId: 'late' },
    });
    expect(codes(refused)).toEqual(['TEAM_CLOSED']);
  });
});
