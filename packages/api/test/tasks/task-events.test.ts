import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, expectData, sendRequest } from '../graphql/fixtures.js';
import { createGraphqlStack, type GraphqlStack } from '../graphql/graphql-stack.js';
import { collect, wsClient } from '../support/ws-client.js';
import { ASSIGN_TASK, createTask, type TaskView, TEAM_TASKS } from './task-graphql.js';

let stack: GraphqlStack;
let baseUrl: string;
const clients: Client[] = [];
beforeAll(async () => {
  stack = await createGraphqlStack();
  baseUrl = (await stack.server.listen(0, '127.0.0.1')).url;
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await stack.close();
});

type Event = { __typename: string; seq: number; task?: { id: string; revision: number; status: string } };
const TEAM_EVENTS = `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
  __typename seq ... on TaskChanged { reason task { id revision status } } } }`;

function events(teamId: string, afterSeq: number, done: (events: readonly Event[]) => boolean) {
  const client = wsClient(baseUrl);
  clients.push(client);
  return collect(client, { query: TEAM_EVENTS, variables: { teamId, afterSeq } }, (d) => d.teamEvents as Event, done);
}

describe('TaskChanged on teamEvents', () => {
  it('replays task changes from any seq, one event per change with the task as it is now', async () => {
    const team = await createTeam(stack);
    const task = await createTask(stack, team.id);
    const member = String(team.members[0]?.id);
    await stack.gql(ASSIGN_TASK, { input: { taskId: task.id, expectedRevision: 1, memberId: member } });
    const all = await events(team.id, 0, (seen) => seen.filter((e) => e.__typename === 'TaskChanged').length >= 2);
    const changes = all.filter((e) => e.__typename === 'TaskChanged');
    expect(changes.map((e) => e.task)).toEqual([
      { id: task.id, revision: 2, status: 'CLAIMED' },
      { id: task.id, revision: 2, status: 'CLAIMED' },
    ]);
    const resumed = await events(team.id, changes[0]?.seq ?? 0, (seen) => seen.length >= 1);
    expect(resumed[0]).toMatchObject({ __typename: 'TaskChanged', seq: changes[1]?.seq });
  });
});

describe('task tools from a scripted member', () => {
  it('creates and claims through !tool, and a stale claim answers current_revision', async () => {
    const team = await createTeam(stack);
    const ada = String(team.members[0]?.id);
    const [create = ''] = await sendRequest(
      stack,
      team.id,
      [ada],
      '!tool task_create {"title":"From Ada","write_scope":["docs"]}',
    );
    const done = await stack.waitForJob(create, ['COMPLETED']);
    const answer = JSON.parse(String((done.result as { text: string }).text)) as { task: { id: string } };
    expect(answer).toMatchObject({ task: { title: 'From Ada', created_by: 'Ada', revision: 1 }, warnings: [] });
    const id = answer.task.id;
    const [claim = ''] = await sendRequest(
      stack,
      team.id,
      [ada],
      `!tool task_claim {"task_id":"${id}","expected_revision":1}\n!tool task_claim {"task_id":"${id}","expected_revision":1}`,
    );
    const claimed = await stack.waitForJob(claim, ['COMPLETED']);
    const [first, second] = String((claimed.result as { text: string }).text).split('\n');
    expect(JSON.parse(String(first))).toMatchObject({ task: { owner: 'Ada', status: 'claimed', revision: 2 } });
    expect(JSON.parse(String(second))).toEqual({ error: { code: 'TASK_STALE_REVISION', current_revision: 2 } });
    const board = expectData(await stack.gql(TEAM_TASKS, { id: team.id, first: 5 })).team as {
      tasks: { edges: { node: TaskView }[] };
    };
    expect(board.tasks.edges.map((e) => e.node)).toEqual([
      expect.objectContaining({ id, owner: { name: 'Ada' }, createdBy: { name: 'Ada' } }),
    ]);
  });
});

describe('a waiting member and the board', () => {
  it('wakes on a task change, and the wake-up names the task', async () => {
    const team = await createTeam(stack);
    const [wait = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], '!wait 60000');
    await stack.waitForJob(wait, ['WAITING_CHANGE']);
    const task = await createTask(stack, team.id, { title: 'Wake up' });
    const done = await stack.waitForJob(wait, ['COMPLETED']);
    const answer = JSON.parse(String((done.result as { text: string }).text).split('\n')[0] ?? '') as {
      timed_out: boolean;
      changes: { kind: string; task_id?: string }[];
    };
    expect(answer.timed_out).toBe(false);
    expect(answer.changes).toContainEqual(expect.objectContaining({ kind: 'TASK_CHANGED', task_id: task.id }));
  });
});
