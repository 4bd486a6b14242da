import { ErrorCode } from '../errors/codes.js';
import { DomainError, err, ok, type Result } from '../errors/domain-error.js';
import type { MemberId } from '../model/ids.js';
import type { Timestamp } from '../ports/clock.js';
import { isFinishedTask, type Task, type TaskActor, TaskStatus } from './task.js';
import type { TaskBoard, TaskChange, TaskCommand } from './task-command.js';
import { scopeOverlaps } from './task-graph.js';
import { blockedBy, checkAssignee, checkDependencies, taskMap } from './task-rules.js';

/** A write to an existing task. */
type ExistingTaskCommand = Exclude<TaskCommand, { type: 'create' }>;

/** Who may run each command besides the team's owner (a person may always). */
const ALLOWED: Readonly<Record<ExistingTaskCommand['type'], readonly ('creator' | 'owner' | 'lead' | 'any')[]>> = {
  update: ['creator', 'owner', 'lead'],
  claim: ['any'],
  complete: ['owner', 'lead'],
  release: ['owner', 'lead'],
  cancel: ['creator', 'lead'],
  assign: ['lead'],
};

function permission(task: Task, type: ExistingTaskCommand['type'], actor: TaskActor): DomainError | null {
  if (actor.kind === 'person') {
    return type === 'claim'
      ? new DomainError(ErrorCode.FORBIDDEN, 'People assign tasks (assignTask); only members claim them.')
      : null;
  }
  const roles = ALLOWED[type];
  const may =
    roles.includes('any') ||
    (roles.includes('lead') && actor.isLead) ||
    (roles.includes('creator') && task.createdBy === actor.memberId) ||
    (roles.includes('owner') && task.ownerId === actor.memberId);
  if (may) return null;
  if (type === 'assign') return new DomainError(ErrorCode.NOT_LEAD, 'Only the lead assigns tasks.');
  const who = roles.join(', ').replace(/, ([^,]*)$/, ' or $1');
  return new DomainError(ErrorCode.FORBIDDEN, `Only the task's ${who} may ${type} it.`, { field: 'taskId' });
}

const wrongState = (task: Task, type: string): DomainError =>
  new DomainError(ErrorCode.INVALID_TRANSITION, `A ${task.status.toLowerCase()} task does not accept ${type}.`, {
    field: 'taskId',
    status: task.status,
  });

const unchanged = (board: TaskBoard, task: Task): TaskChange => ({
  task,
  warnings: scopeOverlaps(board.tasks, task.id, task.writeScope),
  changed: false,
  previousRevision: task.revision,
});

function changed(board: TaskBoard, before: Task, patch: Partial<Task>, now: Timestamp): Result<TaskChange> {
  const task: Task = { ...before, ...patch, revision: before.revision + 1, updatedAt: now };
  const warnings = scopeOverlaps(board.tasks, task.id, task.writeScope);
  return ok({ task, warnings, changed: true, previousRevision: before.revision });
}

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

function update(
  board: TaskBoard,
  task: Task,
  command: Extract<TaskCommand, { type: 'update' }>,
  now: Timestamp,
): Result<TaskChange> {
  const next = {
    title: command.title ?? task.title,
    details: command.details === undefined ? task.details : command.details,
    dependsOn: command.dependsOn ?? task.dependsOn,
    writeScope: command.writeScope ?? task.writeScope,
  };
  if (command.dependsOn !== undefined) {
    const problem = checkDependencies(taskMap(board), task.id, command.dependsOn);
    if (problem !== null) return err(problem);
  }
  const same =
    next.title === task.title &&
    next.details === task.details &&
    sameList(next.dependsOn, task.dependsOn) &&
    sameList(next.writeScope, task.writeScope);
  return same ? ok(unchanged(board, task)) : changed(board, task, next, now);
}

function claimFor(board: TaskBoard, task: Task, memberId: MemberId, now: Timestamp): Result<TaskChange> {
  if (task.ownerId === memberId) return ok(unchanged(board, task));
  const problem = checkAssignee(board, memberId) ?? blockedBy(taskMap(board), task.dependsOn);
  if (problem !== null) return err(problem);
  return changed(board, task, { status: TaskStatus.CLAIMED, ownerId: memberId }, now);
}

/**
 * Decides a write to an existing task whose revision the command matched (see `decideTask`):
 * permission, then the task's state, then the command's own rules.
 */
export function decideTaskWrite(
  board: TaskBoard,
  task: Task,
  command: ExistingTaskCommand,
  actor: TaskActor,
  now: Timestamp,
): Result<TaskChange> {
  const denied = permission(task, command.type, actor);
  if (denied !== null) return err(denied);
  if (isFinishedTask(task.status)) return err(wrongState(task, command.type));
  switch (command.type) {
    case 'update':
      return update(board, task, command, now);
    case 'claim': {
      if (actor.kind !== 'member') return err(wrongState(task, 'claim'));
      if (task.ownerId !== null && task.ownerId !== actor.memberId) {
        const owner = board.members.find((m) => m.id === task.ownerId)?.name ?? task.ownerId;
        return err(
          new DomainError(ErrorCode.TASK_CLAIMED, `${owner} already owns this task.`, { field: 'taskId', owner }),
        );
      }
      return claimFor(board, task, actor.memberId, now);
    }
    case 'assign':
      if (command.memberId === null) {
        return task.ownerId === null
          ? ok(unchanged(board, task))
          : changed(board, task, { status: TaskStatus.OPEN, ownerId: null }, now);
      }
      return claimFor(board, task, command.memberId, now);
    case 'complete': {
      const blocked = blockedBy(taskMap(board), task.dependsOn);
      if (blocked !== null) return err(blocked);
      return changed(board, task, { status: TaskStatus.DONE, result: command.result }, now);
    }
    case 'release':
      if (task.status !== TaskStatus.CLAIMED) return err(wrongState(task, 'release'));
      return changed(board, task, { status: TaskStatus.OPEN, ownerId: null }, now);
    case 'cancel':
      return changed(board, task, { status: TaskStatus.CANCELLED }, now);
  }
}

/**
 * The claimed tasks to give back when their owner is retired (`memberId`) or the team closes
 * (`null`: every claim): each OPEN again, without owner, one revision later.
 */
export function releasedClaims(tasks: readonly Task[], memberId: MemberId | null, now: Timestamp): readonly Task[] {
  return tasks
    .filter((t) => t.status === TaskStatus.CLAIMED && (memberId === null || t.ownerId === memberId))
    .map((t) => ({ ...t, status: TaskStatus.OPEN, ownerId: null, revision: t.revision + 1, updatedAt: now }));
}
