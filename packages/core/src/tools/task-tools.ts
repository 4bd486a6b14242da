import { ErrorCode } from '../errors/codes.js';
import { DomainError, err, ok, type Result } from '../errors/domain-error.js';
import type { IdGenerator, MemberId } from '../model/ids.js';
import type { Member } from '../model/team.js';
import { type Clock, nowTimestamp, type Timestamp } from '../ports/clock.js';
import type { Tasks } from '../ports/store/tasks.js';
import type { RecordedToolRequest, ToolRequest } from '../ports/store/tool-requests.js';
import type { ToolCaller } from '../services/handoff-service.js';
import { asTaskId, type TaskActor } from '../tasks/task.js';
import { decideTask } from '../tasks/task-board.js';
import type { TaskBoard, TaskChange, TaskCommand } from '../tasks/task-command.js';
import { scopeOverlaps } from '../tasks/task-graph.js';
import {
  validateDependsOn,
  validateRevision,
  validateTaskDetails,
  validateTaskResult,
  validateTaskTitle,
  validateWriteScope,
} from '../tasks/task-input.js';
import { listTasksForTool } from '../tasks/task-list.js';
import { taskJson, warningJson } from '../tasks/task-views.js';
import { validateClientRequestId } from '../text/validate-text.js';
import { TASK_TOOL_SPECS } from './task-tool-specs.js';
import { toolReplayConflict, toolRequestKey, toolRequestOf } from './tool-requests.js';

/** The task tools' names, from their specs. */
export const TASK_TOOL_NAMES = TASK_TOOL_SPECS.map((tool) => tool.name);
export type TaskToolName = (typeof TASK_TOOL_SPECS)[number]['name'];

/** True for a task tool's name. */
export const isTaskTool = (name: string): name is TaskToolName => (TASK_TOOL_NAMES as readonly string[]).includes(name);

/** What the task tools need. */
export interface TaskToolDeps {
  readonly store: Tasks;
  readonly ids: IdGenerator;
  readonly clock: Clock;
}

type Args = Readonly<Record<string, unknown>>;

/** An optional argument: absent (undefined or null) stays undefined, else validated. */
const optional = <T>(args: Args, key: string, check: (field: string, value: unknown) => T): T | undefined =>
  args[key] === undefined || args[key] === null ? undefined : check(key, args[key]);

function memberNamed(roster: readonly Member[], value: unknown, field: string): MemberId {
  const member = typeof value === 'string' ? roster.find((m) => m.id === value || m.name === value.trim()) : undefined;
  if (member === undefined) throw new DomainError(ErrorCode.NOT_FOUND, 'No such member in this team.', { field });
  return member.id;
}

function existing(args: Args) {
  const taskId = args.task_id;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > 128) {
    throw new DomainError(ErrorCode.INVALID_INPUT, 'task_id must be a task id.', { field: 'task_id' });
  }
  return { taskId: asTaskId(taskId), expectedRevision: validateRevision('expected_revision', args.expected_revision) };
}

/**
 * The board's idempotency key of a member's `task_create`: its `request_id`, kept apart from
 * people's `clientRequestId`s and other members' ids (the board holds one key space per team).
 * Null without one (every call creates).
 */
function toolCreateKey(caller: ToolCaller, args: Args): string | null {
  const requestId = optional(args, 'request_id', (field, value) => validateClientRequestId(value, field));
  return requestId === undefined ? null : toolRequestKey(caller.member.id, requestId);
}

function commandOf(
  deps: TaskToolDeps,
  caller: ToolCaller,
  tool: Exclude<TaskToolName, 'task_list'>,
  args: Args,
): TaskCommand {
  switch (tool) {
    case 'task_create':
      return {
        type: 'create',
        id: deps.ids.taskId(),
        clientRequestId: toolCreateKey(caller, args),
        title: validateTaskTitle('title', args.title),
        details: validateTaskDetails('details', args.details),
        dependsOn: validateDependsOn('depends_on', args.depends_on),
        writeScope: validateWriteScope('write_scope', args.write_scope),
        assigneeId:
          args.assignee === undefined || args.assignee === null
            ? null
            : memberNamed(caller.roster, args.assignee, 'assignee'),
      };
    case 'task_update': {
      const title = optional(args, 'title', validateTaskTitle);
      const dependsOn = optional(args, 'depends_on', validateDependsOn);
      const writeScope = optional(args, 'write_scope', validateWriteScope);
      return {
        type: 'update',
        ...existing(args),
        ...(title === undefined ? {} : { title }),
        ...(args.details === undefined ? {} : { details: validateTaskDetails('details', args.details) }),
        ...(dependsOn === undefined ? {} : { dependsOn }),
        ...(writeScope === undefined ? {} : { writeScope }),
      };
    }
    case 'task_complete':
      return { type: 'complete', ...existing(args), result: validateTaskResult('result', args.result) };
    case 'task_claim':
      return { type: 'claim', ...existing(args) };
    case 'task_release':
      return { type: 'release', ...existing(args) };
    case 'task_cancel':
      return { type: 'cancel', ...existing(args) };
  }
}

/**
 * A task write whose key the board says was recorded (a member's call run again after a crash,
 * between the commit of its change and the commit of its result): the task as it is now, changing
 * nothing, where the call's `expected_revision`, stale by the call's own change, would be
 * refused with TASK_STALE_REVISION; another call under the key is IDEMPOTENCY_CONFLICT.
 */
function replayTaskWrite(board: TaskBoard, recorded: RecordedToolRequest, request: ToolRequest): Result<TaskChange> {
  const conflict = toolReplayConflict(recorded, request);
  if (conflict !== null) return err(conflict);
  const task = board.tasks.find((t) => t.id === recorded.answerId);
  if (task === undefined) {
    return err(new DomainError(ErrorCode.NOT_FOUND, 'No such task in this team.', { field: 'taskId' }));
  }
  const warnings = scopeOverlaps(board.tasks, task.id, task.writeScope);
  return ok({ task, warnings, changed: false, previousRevision: task.revision });
}

/**
 * Decides one board command as `actor` on `board` (`decideTask`); with `request` (a member's keyed
 * write) whose key the board says was recorded, answers that write again ({@link replayTaskWrite}).
 */
export function decideKeyedTask(
  board: TaskBoard,
  command: TaskCommand,
  actor: TaskActor,
  now: Timestamp,
  request: ToolRequest | null,
): Result<TaskChange> {
  return request !== null && board.recorded != null
    ? replayTaskWrite(board, board.recorded, request)
    : decideTask(board, command, actor, now);
}

/**
 * Runs one board command as `actor` through the store (the decision runs inside its transaction).
 * With `request` (a member's keyed write), the store records it with the task in the same
 * transaction, and a call under a recorded key answers that write again ({@link decideKeyedTask}).
 */
export function runTaskCommand(
  deps: TaskToolDeps,
  teamId: ToolCaller['team']['id'],
  command: TaskCommand,
  actor: TaskActor,
  request: ToolRequest | null = null,
): Promise<TaskChange> {
  const now = nowTimestamp(deps.clock);
  return deps.store.changeTask({
    teamId,
    now,
    request,
    decide: (board) => decideKeyedTask(board, command, actor, now, request),
  });
}

/**
 * Calls a task tool as the caller (a member: creator, owner and lead rights from the board and
 * the roster). Answers `{ task, warnings }` (create, update) or `{ task }`, or `task_list`'s page.
 * A write given a `request_id` that already succeeded answers the task as it is now, whatever its
 * revision (see {@link runTaskCommand}); without one, every write is decided as it comes.
 * @throws DomainError with the contract's codes; TASK_STALE_REVISION carries `currentRevision`
 * (tools show it as `current_revision`).
 */
export async function invokeTaskTool(
  deps: TaskToolDeps,
  caller: ToolCaller,
  tool: TaskToolName,
  args: Args,
): Promise<unknown> {
  if (tool === 'task_list') return listTasksForTool(deps.store, caller.team, caller.roster, args);
  const command = commandOf(deps, caller, tool, args);
  const actor: TaskActor = { kind: 'member', memberId: caller.member.id, isLead: caller.member.isLead };
  // A write to an existing task is keyed apart from the task (its revision moves on); a create's
  // key is the task's own `clientRequestId` (`toolCreateKey`).
  const request = tool === 'task_create' ? null : toolRequestOf(caller.member.id, args.request_id, { tool, command });
  const change = await runTaskCommand(deps, caller.team.id, command, actor, request);
  const task = taskJson(change.task, new Map(caller.roster.map((m) => [m.id, m])));
  return tool === 'task_create' || tool === 'task_update'
    ? { task, warnings: change.warnings.map(warningJson) }
    : { task };
}

/**
 * The extra fields a tool's error answer carries besides `code` and `message`, snake_case:
 * `current_revision` of a stale task write, `blocked_by` of a blocked claim.
 */
export function toolErrorExtras(error: DomainError): Record<string, unknown> {
  const { currentRevision, blockedBy } = error.details;
  return {
    ...(typeof currentRevision === 'number' ? { current_revision: currentRevision } : {}),
    ...(typeof blockedBy === 'string' ? { blocked_by: blockedBy.split(',') } : {}),
  };
}
