import { ErrorCode } from '../errors/codes.js';
import { DomainError, err, ok, type Result } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import { TeamStatus } from '../model/team.js';
import type { Timestamp } from '../ports/clock.js';
import { type Task, type TaskActor, TaskStatus } from './task.js';
import type { TaskBoard, TaskChange, TaskCommand } from './task-command.js';
import { scopeOverlaps } from './task-graph.js';
import { createFingerprint, replayCreate } from './task-idempotency.js';
import { blockedBy, checkAssignee, checkDependencies, taskMap } from './task-rules.js';
import { decideTaskWrite } from './task-writes.js';

function create(
  board: TaskBoard,
  command: Extract<TaskCommand, { type: 'create' }>,
  actor: TaskActor,
  now: Timestamp,
): Result<TaskChange> {
  if (command.clientRequestId !== null) {
    const twin = board.tasks.find((t) => t.clientRequestId === command.clientRequestId);
    if (twin !== undefined) return replayCreate(twin, command);
  }
  if (board.tasks.length >= Limits.tasksPerTeam) {
    return err(
      new DomainError(ErrorCode.TASK_LIMIT, `The team already holds ${Limits.tasksPerTeam} tasks.`, {
        limit: Limits.tasksPerTeam,
      }),
    );
  }
  if (command.assigneeId !== null && actor.kind === 'member' && !actor.isLead) {
    return err(new DomainError(ErrorCode.NOT_LEAD, 'Only the lead assigns tasks.', { field: 'assignee' }));
  }
  const tasks = taskMap(board);
  const problem =
    checkDependencies(tasks, command.id, command.dependsOn) ??
    (command.assigneeId === null
      ? null
      : (checkAssignee(board, command.assigneeId) ?? blockedBy(tasks, command.dependsOn)));
  if (problem !== null) return err(problem);
  const task: Task = {
    id: command.id,
    teamId: board.teamId,
    seq: (board.tasks.at(-1)?.seq ?? 0) + 1,
    clientRequestId: command.clientRequestId,
    requestFingerprint: command.clientRequestId === null ? null : createFingerprint(command),
    title: command.title,
    details: command.details,
    status: command.assigneeId === null ? TaskStatus.OPEN : TaskStatus.CLAIMED,
    revision: 1,
    dependsOn: command.dependsOn,
    ownerId: command.assigneeId,
    writeScope: command.writeScope,
    createdBy: actor.kind === 'member' ? actor.memberId : null,
    result: null,
    createdAt: now,
    updatedAt: now,
  };
  const warnings = scopeOverlaps(board.tasks, task.id, task.writeScope);
  return ok({ task, warnings, changed: true, previousRevision: null });
}

/**
 * Decides one write to the board: pure, run by the store inside the transaction that then writes
 * the outcome, so the revision check and the write are one atomic step.
 *
 * @remarks Order of the checks: the team accepts tasks (TEAM_CLOSED), the task exists
 * (NOT_FOUND), the revision is current (TASK_STALE_REVISION with `currentRevision`), the actor
 * may do this (FORBIDDEN / NOT_LEAD), the task's state allows it (INVALID_TRANSITION), then the
 * command's own rules (TASK_BLOCKED, TASK_CLAIMED, TASK_CYCLE, TASK_LIMIT, ...).
 */
export function decideTask(
  board: TaskBoard,
  command: TaskCommand,
  actor: TaskActor,
  now: Timestamp,
): Result<TaskChange> {
  if (board.teamStatus === TeamStatus.CLOSED) {
    return err(new DomainError(ErrorCode.TEAM_CLOSED, 'The team is closed: its board accepts no changes.'));
  }
  if (command.type === 'create') return create(board, command, actor, now);
  const task = board.tasks.find((t) => t.id === command.taskId);
  if (task === undefined) {
    return err(new DomainError(ErrorCode.NOT_FOUND, 'No such task in this team.', { field: 'taskId' }));
  }
  if (task.revision !== command.expectedRevision) {
    return err(
      new DomainError(
        ErrorCode.TASK_STALE_REVISION,
        `The task is at revision ${task.revision}, not ${command.expectedRevision}: read it again.`,
        { field: 'expectedRevision', currentRevision: task.revision },
      ),
    );
  }
  return decideTaskWrite(board, task, command, actor, now);
}
