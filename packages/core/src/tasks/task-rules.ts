import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import type { MemberId } from '../model/ids.js';
import { type Task, type TaskId, TaskStatus } from './task.js';
import type { TaskBoard } from './task-command.js';
import { findCycle } from './task-graph.js';

/** The board's tasks by id. */
export const taskMap = (board: TaskBoard): ReadonlyMap<TaskId, Task> => new Map(board.tasks.map((t) => [t.id, t]));

/**
 * The dependencies as given must exist in the team and keep the graph acyclic.
 * @returns the error to answer, or null.
 */
export function checkDependencies(
  tasks: ReadonlyMap<TaskId, Task>,
  taskId: TaskId,
  dependsOn: readonly TaskId[],
): DomainError | null {
  const missing = dependsOn.find((id) => id !== taskId && !tasks.has(id));
  if (missing !== undefined) {
    return new DomainError(ErrorCode.INVALID_INPUT, `There is no task ${missing} in this team.`, {
      field: 'dependsOn',
      taskId: missing,
    });
  }
  const cycle = dependsOn.includes(taskId) ? [taskId] : findCycle(tasks, taskId, dependsOn);
  if (cycle === null) return null;
  return new DomainError(
    ErrorCode.TASK_CYCLE,
    `These dependencies would make a cycle: ${[taskId, ...cycle].join(' → ')}.`,
    {
      field: 'dependsOn',
      cycle: [taskId, ...cycle].join(','),
    },
  );
}

/** The dependencies of `task` that are not DONE, or a TASK_BLOCKED naming them. */
export function blockedBy(tasks: ReadonlyMap<TaskId, Task>, dependsOn: readonly TaskId[]): DomainError | null {
  const open = dependsOn.filter((id) => tasks.get(id)?.status !== TaskStatus.DONE);
  if (open.length === 0) return null;
  return new DomainError(ErrorCode.TASK_BLOCKED, `These dependencies are not done yet: ${open.join(', ')}.`, {
    blockedBy: open.join(','),
  });
}

/**
 * A member who may own a task: on the roster and not retired.
 * @returns the error to answer, or null.
 */
export function checkAssignee(board: TaskBoard, memberId: MemberId): DomainError | null {
  const member = board.members.find((m) => m.id === memberId);
  if (member === undefined) {
    return new DomainError(ErrorCode.NOT_FOUND, 'No such member in this team.', { field: 'assignee' });
  }
  if (member.retiredAt !== null) {
    return new DomainError(ErrorCode.MEMBER_RETIRED, `${member.name} was retired and cannot own tasks.`, {
      field: 'assignee',
    });
  }
  return null;
}
