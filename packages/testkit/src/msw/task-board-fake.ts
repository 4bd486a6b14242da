import {
  asAgentId,
  asConversationId,
  asMemberId,
  asTaskId,
  asTeamId,
  DomainError,
  decideTask,
  ErrorCode,
  type Member,
  type Task,
  type TaskCommand,
  type TaskWarning,
  type TeamStatus,
  validateDependsOn,
  validateTaskDetails,
  validateTaskTitle,
  validateWriteScope,
} from '@agent-teams/core';
import type { FakeTeam, WidgetFake } from './widget-fake.js';

/** Tasks per page of the fake's `Team.tasks` (what the widget's board asks for). */
export const FAKE_TASK_PAGE = 50;

/** The variables of the board's operations (`packages/widget/src/task-board-api.ts`). */
interface TaskVariables {
  readonly id: string;
  readonly after?: string | null;
  readonly input: Record<string, unknown> & { teamId: string; taskId: string; expectedRevision: number };
}
type TaskAnswer = (fake: WidgetFake, variables: TaskVariables) => Record<string, unknown>;

/** Every fake's boards: tasks by team id, in creation order. */
const boards = new WeakMap<WidgetFake, Map<string, Task[]>>();

/** The tasks of a team of `fake` (a test may read or seed them). */
export function fakeTasks(fake: WidgetFake, teamId: string): Task[] {
  const byTeam = boards.get(fake) ?? new Map<string, Task[]>();
  boards.set(fake, byTeam);
  const tasks = byTeam.get(teamId) ?? [];
  byTeam.set(teamId, tasks);
  return tasks;
}

/** The roster in the core's shape, so the board's rules run as on the server. */
const roster = (team: FakeTeam): Member[] =>
  team.members.map((m, position) => ({
    id: asMemberId(m.id),
    teamId: asTeamId(team.id),
    position,
    name: m.name,
    agentId: asAgentId(m.agent.id),
    conversationId: asConversationId(m.conversationId),
    role: null,
    isLead: false,
    retiredAt: m.status === 'RETIRED' ? '2026-01-01T00:00:00.000Z' : null,
  }));

/** A task in the shape of the widget's task fields. */
function taskView(team: FakeTeam, task: Task, tasks: readonly Task[]) {
  const owner = team.members.find((m) => m.id === task.ownerId);
  return {
    __typename: 'Task',
    ...task,
    owner: owner ? { id: owner.id, name: owner.name } : null,
    createdBy: null,
    dependsOn: task.dependsOn.flatMap((id) => {
      const dep = tasks.find((t) => t.id === id);
      return dep ? [{ id: dep.id, title: dep.title, status: dep.status }] : [];
    }),
  };
}

/** A task of the team as the widget reads it now (a `TaskChanged` event carries it), or null. */
export function fakeTaskView(fake: WidgetFake, team: FakeTeam, taskId: string) {
  const tasks = fakeTasks(fake, team.id);
  const task = tasks.find((t) => t.id === taskId);
  return task ? taskView(team, task, tasks) : null;
}

/** Runs one command through the core's `decideTask` as the team's owner, and keeps the outcome. */
function run(fake: WidgetFake, team: FakeTeam, command: TaskCommand) {
  const tasks = fakeTasks(fake, team.id);
  const now = new Date(Date.UTC(2026, 0, 1) + tasks.length * 1000).toISOString();
  const board = { teamId: asTeamId(team.id), teamStatus: team.status as TeamStatus, tasks, members: roster(team) };
  const outcome = decideTask(board, command, { kind: 'person' }, now);
  if (!outcome.ok) throw outcome.error;
  const { task, warnings, changed } = outcome.value;
  const index = tasks.findIndex((t) => t.id === task.id);
  if (index === -1) tasks.push(task);
  else tasks[index] = task;
  if (changed) fake.emit(team, { kind: 'TaskChanged', taskId: task.id });
  return {
    task: taskView(team, task, tasks),
    warnings: warnings.map((w: TaskWarning) => {
      const other = tasks.find((t) => t.id === w.taskId);
      return { kind: w.kind, scope: w.scope, task: other && taskView(team, other, tasks) };
    }),
  };
}

/** The team holding the task, or NOT_FOUND. */
function teamOfTask(fake: WidgetFake, taskId: string): FakeTeam {
  for (const team of fake.teams.values()) if (fakeTasks(fake, team.id).some((t) => t.id === taskId)) return team;
  throw new DomainError(ErrorCode.NOT_FOUND, 'No such task in this team.', { field: 'taskId' });
}

/** A write to an existing task, by its team. */
function write(fake: WidgetFake, v: TaskVariables, command: Record<string, unknown>) {
  const team = teamOfTask(fake, v.input.taskId);
  const base = { taskId: asTaskId(v.input.taskId), expectedRevision: v.input.expectedRevision };
  return run(fake, team, { ...base, ...command } as TaskCommand);
}

/**
 * The task board's answers for `agentTeamsHandlers`, run through the core's own rules
 * (`decideTask`): revisions, TASK_STALE_REVISION with `currentRevision`, TASK_BLOCKED naming the
 * open dependencies, TASK_CYCLE and overlap warnings answer as the server does.
 */
export const TASK_ANSWERS: Readonly<Record<string, TaskAnswer>> = {
  Tasks: (fake, v) => {
    const team = fake.teams.get(v.id);
    if (!team) return { team: null };
    const tasks = fakeTasks(fake, team.id);
    const from = v.after ? Number(v.after) : 0;
    const page = tasks.slice(from, from + FAKE_TASK_PAGE);
    const end = from + page.length;
    return {
      team: {
        id: team.id,
        lastEventSeq: team.lastEventSeq,
        tasks: {
          totalCount: tasks.length,
          pageInfo: { hasNextPage: end < tasks.length, endCursor: page.length ? String(end) : null },
          edges: page.map((task, i) => ({ cursor: String(from + i + 1), node: taskView(team, task, tasks) })),
        },
      },
    };
  },
  Task: (fake, v) => {
    const team = [...fake.teams.values()].find((t) => fakeTasks(fake, t.id).some((task) => task.id === v.id));
    const task = team && fakeTasks(fake, team.id).find((t) => t.id === v.id);
    return { node: team && task ? taskView(team, task, fakeTasks(fake, team.id)) : null };
  },
  CreateTask: (fake, v) => {
    const team = fake.team(v.input.teamId);
    const i = v.input;
    const command: TaskCommand = {
      type: 'create',
      id: asTaskId(`task_${fakeTasks(fake, team.id).length + 1}_${team.id}`),
      clientRequestId: String(i.clientRequestId),
      title: validateTaskTitle('title', i.title),
      details: validateTaskDetails('details', i.details),
      dependsOn: validateDependsOn('dependsOn', i.dependsOn),
      writeScope: validateWriteScope('writeScope', i.writeScope),
      assigneeId: typeof i.assigneeId === 'string' ? asMemberId(i.assigneeId) : null,
    };
    return { createTask: run(fake, team, command) };
  },
  UpdateTask: (fake, v) => {
    const i = v.input;
    const command: Record<string, unknown> = { type: 'update' };
    if (i.title != null) command.title = validateTaskTitle('title', i.title);
    if (i.details != null) command.details = validateTaskDetails('details', i.details);
    if (i.dependsOn != null) command.dependsOn = validateDependsOn('dependsOn', i.dependsOn);
    if (i.writeScope != null) command.writeScope = validateWriteScope('writeScope', i.writeScope);
    return { updateTask: write(fake, v, command) };
  },
  AssignTask: (fake, v) => ({
    assignTask: write(fake, v, {
      type: 'assign',
      memberId: typeof v.input.memberId === 'string' ? asMemberId(v.input.memberId) : null,
    }),
  }),
  CancelTask: (fake, v) => ({ cancelTask: write(fake, v, { type: 'cancel' }) }),
};

/** The board's operations that are mutations. */
export const TASK_MUTATIONS: readonly string[] = ['CreateTask', 'UpdateTask', 'AssignTask', 'CancelTask'];
