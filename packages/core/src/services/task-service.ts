import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import { asMemberId, asTeamId, type OwnerId } from '../model/ids.js';
import type { Team } from '../model/team.js';
import { hashFilter } from '../pagination/cursor.js';
import type { Tasks, TeamReads } from '../ports/team-store.js';
import { asTaskId, type Task, type TaskStatus } from '../tasks/task.js';
import type { TaskChange, TaskCommand } from '../tasks/task-command.js';
import {
  validateDependsOn,
  validateRevision,
  validateTaskDetails,
  validateTaskTitle,
  validateWriteScope,
} from '../tasks/task-input.js';
import { validateClientRequestId } from '../text/validate-text.js';
import { runTaskCommand } from '../tools/task-tools.js';
import { seqPageRequest, toCountedConnection } from './connections.js';
import type { Connection, PageArgs, UsesStore } from './core-types.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<TeamReads & Tasks>;

/** `createTask` as a person sends it. */
export interface CreateTaskInput {
  readonly teamId: string;
  readonly title: unknown;
  readonly details?: unknown;
  readonly dependsOn?: readonly string[] | null;
  readonly writeScope?: readonly string[] | null;
  readonly assigneeId?: string | null;
  readonly clientRequestId: string;
}

/** A write to an existing task: the revision it was based on. */
export interface TaskWriteInput {
  readonly taskId: string;
  readonly expectedRevision: number;
}

/** `updateTask`: absent fields stay as they are. */
export interface UpdateTaskInput extends TaskWriteInput {
  readonly title?: unknown;
  readonly details?: unknown;
  readonly dependsOn?: readonly string[] | null;
  readonly writeScope?: readonly string[] | null;
}

/** The task use cases of the team's owner (GraphQL); the owner may do whatever the lead may. */
export interface TaskUseCases {
  list(
    team: Team,
    args: { readonly status?: TaskStatus | null } & PageArgs,
  ): Promise<Connection<Task> & { totalCount: number }>;
  create(owner: OwnerId, input: CreateTaskInput): Promise<TaskChange>;
  update(owner: OwnerId, input: UpdateTaskInput): Promise<TaskChange>;
  /** `memberId` null releases the task. */
  assign(owner: OwnerId, input: TaskWriteInput & { readonly memberId: string | null }): Promise<TaskChange>;
  cancel(owner: OwnerId, input: TaskWriteInput): Promise<TaskChange>;
}

const PAGE = { defaultSize: 50, maxSize: Limits.connectionPage.max };
const PERSON = { kind: 'person' } as const;
const taskNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Task not found.', { field: 'taskId' });

/** Builds the owner's task use cases. */
export function taskService(deps: Deps): TaskUseCases {
  const ownedTeam = async (owner: OwnerId, teamId: string) => {
    const team = await deps.store.findTeam(owner, asTeamId(teamId));
    if (team === null) throw new DomainError(ErrorCode.NOT_FOUND, 'Team not found.', { field: 'teamId' });
    return team;
  };
  /** The owner's task: another owner's reads as absent, like every id. */
  const ownedTask = async (owner: OwnerId, taskId: string) => {
    const [task] = await deps.store.findTasks([asTaskId(taskId)]);
    if (task === undefined || (await deps.store.findTeam(owner, task.teamId)) === null) throw taskNotFound();
    return task;
  };
  const write = async (
    owner: OwnerId,
    input: TaskWriteInput,
    rest: (base: { taskId: Task['id']; expectedRevision: number }) => TaskCommand,
  ) => {
    const task = await ownedTask(owner, input.taskId);
    const base = { taskId: task.id, expectedRevision: validateRevision('expectedRevision', input.expectedRevision) };
    return runTaskCommand(deps, task.teamId, rest(base), PERSON);
  };
  return {
    async list(team, args) {
      const filter = { status: args.status ?? null, ownerId: null };
      const scope = { kind: 'tasks', filter: hashFilter({ team: team.id, status: filter.status }) };
      const page = await deps.store.listTasks(team.id, filter, seqPageRequest(args, scope, PAGE));
      return toCountedConnection(page, (task) => task.seq, scope);
    },
    async create(owner, input) {
      const team = await ownedTeam(owner, input.teamId);
      const command: TaskCommand = {
        type: 'create',
        id: deps.ids.taskId(),
        clientRequestId: validateClientRequestId(input.clientRequestId),
        title: validateTaskTitle('title', input.title),
        details: validateTaskDetails('details', input.details),
        dependsOn: validateDependsOn('dependsOn', input.dependsOn),
        writeScope: validateWriteScope('writeScope', input.writeScope),
        assigneeId: input.assigneeId == null ? null : asMemberId(input.assigneeId),
      };
      return runTaskCommand(deps, team.id, command, PERSON);
    },
    update: (owner, input) =>
      write(owner, input, (base) => ({
        type: 'update',
        ...base,
        ...(input.title == null ? {} : { title: validateTaskTitle('title', input.title) }),
        ...(input.details === undefined ? {} : { details: validateTaskDetails('details', input.details) }),
        ...(input.dependsOn == null ? {} : { dependsOn: validateDependsOn('dependsOn', input.dependsOn) }),
        ...(input.writeScope == null ? {} : { writeScope: validateWriteScope('writeScope', input.writeScope) }),
      })),
    assign: (owner, input) =>
      write(owner, input, (base) => ({
        type: 'assign',
        ...base,
        memberId: input.memberId === null ? null : asMemberId(input.memberId),
      })),
    cancel: (owner, input) => write(owner, input, (base) => ({ type: 'cancel', ...base })),
  };
}
