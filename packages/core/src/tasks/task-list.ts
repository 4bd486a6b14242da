import { fitToBudget } from '../budget/fit-to-budget.js';
import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import type { MemberId } from '../model/ids.js';
import type { Member, Team } from '../model/team.js';
import { decodeCursor, encodeCursor, hashFilter, pageSize } from '../pagination/cursor.js';
import type { Tasks } from '../ports/store/tasks.js';
import { truncateUtf8, utf8ByteLength } from '../text/text-measure.js';
import { type Task, TaskStatus } from './task.js';
import { taskJson } from './task-views.js';

/** `task_list` arguments after the JSON shape check. */
export interface TaskListArgs {
  readonly status?: unknown;
  readonly owner?: unknown;
  readonly limit?: unknown;
  readonly cursor?: unknown;
}

/** Mark appended to details or a result cut to fit the tool budget. */
const CUT = ' [cut to fit; read the task alone with task_list and owner/status filters]';

function parseStatus(value: unknown): TaskStatus | null {
  if (value === undefined || value === null) return null;
  const status = typeof value === 'string' ? value.toUpperCase() : '';
  if (!Object.hasOwn(TaskStatus, status)) {
    throw new DomainError(ErrorCode.INVALID_INPUT, 'status must be open, claimed, done or cancelled.', {
      field: 'status',
    });
  }
  return status as TaskStatus;
}

function parseOwner(value: unknown, roster: readonly Member[]): MemberId | null {
  if (value === undefined || value === null) return null;
  const member = typeof value === 'string' ? roster.find((m) => m.id === value || m.name === value.trim()) : undefined;
  if (member === undefined)
    throw new DomainError(ErrorCode.NOT_FOUND, 'No such member in this team.', { field: 'owner' });
  return member.id;
}

const cut = (text: string | null, maxBytes: number) =>
  text === null || utf8ByteLength(text) <= maxBytes ? text : `${truncateUtf8(text, maxBytes).text}${CUT}`;

/**
 * `task_list`: the board in creation order, filtered by status and owner, within the 24,000-byte
 * tool budget; the cursor is bound to the team and the filters (CURSOR_MISMATCH otherwise), like
 * the history tools'.
 * @throws DomainError INVALID_INPUT, NOT_FOUND (owner), CURSOR_MISMATCH.
 */
export async function listTasksForTool(
  store: Pick<Tasks, 'listTasks'>,
  team: Team,
  roster: readonly Member[],
  args: TaskListArgs,
): Promise<unknown> {
  const filter = { status: parseStatus(args.status), ownerId: parseOwner(args.owner, roster) };
  if (args.limit !== undefined && args.limit !== null && typeof args.limit !== 'number') {
    throw new DomainError(ErrorCode.INVALID_INPUT, `limit must be between 1 and ${Limits.pageSize.max}.`, {
      field: 'limit',
    });
  }
  const limit = pageSize(
    args.limit as number | null | undefined,
    Limits.pageSize.default,
    Limits.pageSize.max,
    'limit',
  );
  if (args.cursor !== undefined && args.cursor !== null && typeof args.cursor !== 'string') {
    throw new DomainError(ErrorCode.INVALID_INPUT, 'cursor must be a string.', { field: 'cursor' });
  }
  const hash = hashFilter({ team: team.id, ...filter });
  const afterSeq = typeof args.cursor === 'string' ? decodeCursor(args.cursor, 'tasks', hash, 'cursor') : null;
  const page = await store.listTasks(team.id, filter, { first: limit, afterSeq });
  const names = new Map(roster.map((m) => [m.id, m]));
  const render = (tasks: readonly Task[], more: boolean) => {
    const last = tasks.at(-1);
    return {
      tasks: tasks.map((t) => taskJson(t, names)),
      next_cursor: more ? encodeCursor({ kind: 'tasks', seq: last?.seq ?? afterSeq ?? 0, filter: hash }) : null,
    };
  };
  return fitToBudget({
    items: page.items,
    hasMore: page.hasNextPage,
    maxBytes: Limits.toolResponseBytes,
    render,
    trim: (task, maxTextBytes) => ({
      ...task,
      details: cut(task.details, maxTextBytes),
      result: cut(task.result, maxTextBytes),
    }),
    textBytes: (task) => Math.max(utf8ByteLength(task.details ?? ''), utf8ByteLength(task.result ?? '')),
  }).answer;
}
