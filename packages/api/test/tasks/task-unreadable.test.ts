// A task's stored lists that no longer read (a hand-edited or damaged database; decision 0245):
// the board still reads, a lost dependency list keeps its task blocked until a person sets the
// list again, and lost write scopes only stop warning of overlaps. Each value is reported once.
import { describe, expect, it } from 'vitest';
import { LOST_DEPENDENCIES } from '../../src/storage/task-board.js';
import { expectData, type TeamFixture } from '../graphql/fixtures.js';
import type { GraphqlStack } from '../graphql/graphql-stack.js';
import { unreadableWarnings } from '../support/unreadable-warnings.js';
import { ASSIGN_TASK, boardPerFile, CREATE_TASK, createTask, TEAM_TASKS, taskOf, UPDATE_TASK } from './task-graphql.js';

let stack: GraphqlStack;
let team: TeamFixture;
boardPerFile((board) => {
  ({ stack, team } = board);
});

const warned = unreadableWarnings();

/** Writes `text` over one stored list of a task, as a damaged database would hold it. */
async function damage(taskId: string, column: 'depends_on' | 'write_scope', text: string): Promise<void> {
  const database = stack.app.database;
  if (database === null) throw new Error('the test app has no database');
  await database.db
    .updateTable('tasks')
    .set({ [column]: text })
    .where('id', '=', taskId)
    .execute();
}

const boardTitles = async () => {
  const data = expectData(await stack.gql(TEAM_TASKS, { id: team.id, first: 20 }));
  return (data.team as { tasks: { edges: { node: { title: string } }[] } }).tasks.edges.map((e) => e.node.title);
};

describe('task lists that no longer read', () => {
  it.each([
    ['text that does not parse', '["task_1", "数据 😀'],
    ['a list that holds something else', '[1, null]'],
    ['JSON null', 'null'],
  ])('keeps a task whose dependency list is %s blocked until a person sets the list again', async (_what, text) => {
    const dep = await createTask(stack, team.id, { title: 'Dependency' });
    const task = await createTask(stack, team.id, { title: `Blocked by ${text}`, dependsOn: [dep.id] });
    await damage(task.id, 'depends_on', text);
    // The board reads, every task on it.
    expect(await boardTitles()).toContain(`Blocked by ${text}`);
    const member = String(team.members[0]?.id);
    const refused = await stack.gql(ASSIGN_TASK, { input: { taskId: task.id, expectedRevision: 1, memberId: member } });
    expect(refused.errors[0]?.extensions).toMatchObject({ code: 'TASK_BLOCKED', blockedBy: LOST_DEPENDENCIES });
    // Another change keeps it lost (stored as read), so it stays blocked until the list is set.
    const renamed = taskOf(
      await stack.gql(UPDATE_TASK, { input: { taskId: task.id, expectedRevision: 1, title: 'Renamed' } }),
      'updateTask',
    );
    expect(renamed).toMatchObject({ revision: 2, dependsOn: [] });
    const stored = await stack.app.database?.db
      .selectFrom('tasks')
      .select('depends_on')
      .where('id', '=', task.id)
      .executeTakeFirstOrThrow();
    expect(stored?.depends_on).toBe(JSON.stringify([LOST_DEPENDENCIES]));
    const still = await stack.gql(ASSIGN_TASK, { input: { taskId: task.id, expectedRevision: 2, memberId: member } });
    expect(still.errors[0]?.extensions).toMatchObject({ code: 'TASK_BLOCKED' });
    const set = await stack.gql(UPDATE_TASK, { input: { taskId: task.id, expectedRevision: 2, dependsOn: [] } });
    expect(taskOf(set, 'updateTask')).toMatchObject({ revision: 3, dependsOn: [] });
    const claimed = await stack.gql(ASSIGN_TASK, { input: { taskId: task.id, expectedRevision: 3, memberId: member } });
    expect(taskOf(claimed, 'assignTask')).toMatchObject({ status: 'CLAIMED', owner: { name: 'Ada' } });
    // Reported once, naming the row, never the text.
    expect(warned()).toEqual([
      expect.stringMatching(
        new RegExp(`^tasks\\.depends_on of ${task.id} .*; read as a dependency no task has \\(blocked\\)$`),
      ),
    ]);
    expect(warned()[0]).not.toContain(text);
  });

  it('reads lost write scopes as none: the task stays on the board and warns of no overlap', async () => {
    const task = await createTask(stack, team.id, { title: 'Scoped', writeScope: ['src/app'] });
    await damage(task.id, 'write_scope', '{"src": 数据');
    expect(await boardTitles()).toContain('Scoped');
    const other = expectData(
      await stack.gql(CREATE_TASK, {
        input: { teamId: team.id, title: 'Same scope', clientRequestId: 'same-scope', writeScope: ['src/app/a.ts'] },
      }),
    ).createTask as { warnings: { task: { id: string } }[] };
    expect(other.warnings.filter((warning) => warning.task.id === task.id)).toEqual([]);
    expect(warned()).toEqual([expect.stringMatching(new RegExp(`^tasks\\.write_scope of ${task.id} does not read`))]);
  });
});
