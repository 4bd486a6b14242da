import { describe, expect, it } from 'vitest';
import { createTeam, expectData, type TeamFixture } from '../graphql/fixtures.js';
import { codes, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import {
  ASSIGN_TASK,
  boardPerFile,
  CANCEL_TASK,
  CREATE_TASK,
  createTask,
  type TaskView,
  TEAM_TASKS,
  taskOf,
  UPDATE_TASK,
} from './task-graphql.js';

let stack: GraphqlStack;
let team: TeamFixture;
boardPerFile((board) => {
  ({ stack, team } = board);
});

const member = (index: number) => String(team.members[index]?.id);

describe('task board over GraphQL', () => {
  it('creates, assigns, updates and cancels with a revision that grows by one', async () => {
    const dep = await createTask(stack, team.id, { title: 'Dependency' });
    const task = await createTask(stack, team.id, { title: 'Main', details: 'd', dependsOn: [dep.id] });
    expect(task).toMatchObject({ status: 'OPEN', revision: 1, createdBy: null, dependsOn: [{ id: dep.id }] });
    const blocked = await stack.gql(ASSIGN_TASK, {
      input: { taskId: task.id, expectedRevision: 1, memberId: member(0) },
    });
    expect(blocked.errors[0]?.extensions).toMatchObject({ code: 'TASK_BLOCKED', blockedBy: dep.id });
    const assigned = taskOf(
      await stack.gql(ASSIGN_TASK, { input: { taskId: dep.id, expectedRevision: 1, memberId: member(1) } }),
      'assignTask',
    );
    expect(assigned).toMatchObject({ status: 'CLAIMED', owner: { name: 'Bob' }, revision: 2 });
    const updated = taskOf(
      await stack.gql(UPDATE_TASK, { input: { taskId: task.id, expectedRevision: 1, title: 'Main, renamed' } }),
      'updateTask',
    );
    expect(updated).toMatchObject({ title: 'Main, renamed', revision: 2 });
    const cancelled = taskOf(
      await stack.gql(CANCEL_TASK, { input: { taskId: task.id, expectedRevision: 2 } }),
      'cancelTask',
    );
    expect(cancelled).toMatchObject({ status: 'CANCELLED', revision: 3 });
  });

  it('refuses a stale revision with extensions.currentRevision and changes nothing', async () => {
    const task = await createTask(stack, team.id);
    await stack.gql(UPDATE_TASK, { input: { taskId: task.id, expectedRevision: 1, details: 'v2' } });
    const stale = await stack.gql(UPDATE_TASK, { input: { taskId: task.id, expectedRevision: 1, details: 'v3' } });
    expect(stale.errors[0]?.extensions).toMatchObject({ code: 'TASK_STALE_REVISION', currentRevision: 2 });
    const node = await stack.gql('query($id: ID!) { node(id: $id) { ... on Task { revision details } } }', {
      id: task.id,
    });
    expect(expectData(node).node).toEqual({ revision: 2, details: 'v2' });
  });

  it('warns about overlapping write scopes and refuses cycles', async () => {
    const a = await createTask(stack, team.id, { writeScope: ['packages/api'] });
    const response = await stack.gql(CREATE_TASK, {
      input: {
        teamId: team.id,
        title: 'B',
        writeScope: ['packages/api/src'],
        clientRequestId: 'overlap',
        dependsOn: [a.id],
      },
    });
    const { task: b, warnings } = expectData(response).createTask as { task: TaskView; warnings: unknown[] };
    expect(warnings).toEqual([{ kind: 'write_scope_overlap', scope: 'packages/api', task: { id: a.id } }]);
    const cycle = await stack.gql(UPDATE_TASK, { input: { taskId: a.id, expectedRevision: 1, dependsOn: [b.id] } });
    expect(codes(cycle)).toEqual(['TASK_CYCLE']);
  });

  it('pages Team.tasks by status with cursors bound to the filter', async () => {
    const fresh = await createTeam(stack);
    const made: TaskView[] = [];
    for (let i = 0; i < 5; i += 1) made.push(await createTask(stack, fresh.id));
    await stack.gql(CANCEL_TASK, { input: { taskId: made[1]?.id, expectedRevision: 1 } });
    type Page = {
      totalCount: number;
      pageInfo: { hasNextPage: boolean; endCursor: string };
      edges: { node: TaskView }[];
    };
    const page = async (vars: Record<string, unknown>) =>
      (expectData(await stack.gql(TEAM_TASKS, { id: fresh.id, ...vars })).team as { tasks: Page }).tasks;
    const first = await page({ status: 'OPEN', first: 2 });
    expect(first.totalCount).toBe(4);
    expect(first.edges.map((e) => e.node.id)).toEqual([made[0]?.id, made[2]?.id]);
    const rest = await page({ status: 'OPEN', first: 10, after: first.pageInfo.endCursor });
    expect(rest.edges.map((e) => e.node.id)).toEqual([made[3]?.id, made[4]?.id]);
    expect((await page({ first: 10 })).totalCount).toBe(5);
    const mismatch = await stack.gql(TEAM_TASKS, {
      id: fresh.id,
      status: 'DONE',
      first: 2,
      after: first.pageInfo.endCursor,
    });
    expect(codes(mismatch)).toEqual(['CURSOR_MISMATCH']);
  });

  it('replays a createTask retried after a teammate renamed and assigned the task', async () => {
    const input = { teamId: team.id, clientRequestId: 'lost-answer', title: 'Draft', details: 'v1' };
    const task = taskOf(await stack.gql(CREATE_TASK, { input }), 'createTask');
    await stack.gql(UPDATE_TASK, { input: { taskId: task.id, expectedRevision: 1, title: 'Final' } });
    await stack.gql(ASSIGN_TASK, { input: { taskId: task.id, expectedRevision: 2, memberId: member(1) } });
    const retry = taskOf(await stack.gql(CREATE_TASK, { input }), 'createTask');
    expect(retry).toMatchObject({ id: task.id, title: 'Final', status: 'CLAIMED', revision: 3 });
    const other = await stack.gql(CREATE_TASK, { input: { ...input, title: 'Final' } });
    expect(codes(other)).toEqual(['IDEMPOTENCY_CONFLICT']);
  });

  it("answers NOT_FOUND for another owner's team and task, and replays a create by clientRequestId", async () => {
    const task = await createTask(stack, team.id, { clientRequestId: 'same', title: 'Once' });
    const again = await createTask(stack, team.id, { clientRequestId: 'same', title: 'Once' });
    expect(again.id).toBe(task.id);
    const other = await stack.gql(CANCEL_TASK, { input: { taskId: task.id, expectedRevision: 1 } }, TOKENS.bob);
    expect(codes(other)).toEqual(['NOT_FOUND']);
    const create = await stack.gql(
      CREATE_TASK,
      { input: { teamId: team.id, title: 'x', clientRequestId: 'bob' } },
      TOKENS.bob,
    );
    expect(codes(create)).toEqual(['NOT_FOUND']);
    const node = await stack.gql('query($id: ID!) { node(id: $id) { id } }', { id: task.id }, TOKENS.bob);
    expect(expectData(node).node).toBeNull();
  });
});
