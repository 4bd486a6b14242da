import type { Result } from '../../errors/domain-error.js';
import type { MemberId, TeamId } from '../../model/ids.js';
import type { Task, TaskId, TaskStatus } from '../../tasks/task.js';
import type { TaskBoard, TaskChange } from '../../tasks/task-command.js';
import type { SeqPage, SeqPageRequest } from './pages.js';
import type { ToolRequest } from './tool-requests.js';

/** Filters of `task_list` and `Team.tasks`, applied by the store before paging. */
export interface TaskFilter {
  readonly status: TaskStatus | null;
  readonly ownerId: MemberId | null;
}

/** Arguments of {@link Tasks.changeTask}. */
export interface ChangeTaskArgs {
  readonly teamId: TeamId;
  readonly now: string;
  /**
   * The core's pure decision (`decideTask`), run on the board as it is inside the transaction.
   * An error result is thrown as is, with nothing written.
   */
  readonly decide: (board: TaskBoard) => Result<TaskChange>;
  /**
   * The idempotency key of a member's write (`request_id` of the task write tools); absent or null
   * for none. The board then carries what the key recorded (`TaskBoard.recorded`), and a decision
   * that succeeds without a recorded write records the key with its task, changed or not, in the
   * same transaction.
   */
  readonly request?: ToolRequest | null;
}

/**
 * Store role: the team's task board.
 *
 * @remarks Every write reads the board and writes its outcome in ONE transaction with the team
 * locked (`FOR UPDATE` on PostgreSQL, `BEGIN IMMEDIATE` on SQLite), and the row update itself is
 * conditional on the revision the decision was based on: racing writes on several servers
 * serialize, and exactly one of several claims based on one revision wins. Each change adds a
 * TASK_CHANGED event (naming the task) and bumps the team's revision in the same transaction.
 */
export interface Tasks {
  /**
   * Decides and applies one write. Throws NOT_FOUND for an absent team, or the decision's error.
   * A decision that changes nothing writes nothing (but the key of {@link ChangeTaskArgs.request})
   * and adds no event.
   */
  changeTask(args: ChangeTaskArgs): Promise<TaskChange>;
  /** The team's tasks in board (creation) order, filtered, after `afterSeq`, with the filtered total. */
  listTasks(
    teamId: TeamId,
    filter: TaskFilter,
    page: SeqPageRequest,
  ): Promise<SeqPage<Task> & { readonly totalCount: number }>;
  /** Tasks by id, any team (batch loading after scoping). Missing ids are skipped. */
  findTasks(taskIds: readonly TaskId[]): Promise<readonly Task[]>;
  /**
   * Gives back claimed tasks: those of `memberId` (retired), or every claim of the team (`null`:
   * closed). Each becomes OPEN without owner, one revision later, with a TASK_CHANGED event whose
   * `reason` says why. Answers the released tasks (none: nothing written).
   */
  releaseClaims(teamId: TeamId, memberId: MemberId | null, reason: string, now: string): Promise<readonly Task[]>;
}
