import { type Accessor, createContext, useContext } from 'solid-js';
import type { Strings } from '../i18n.js';
import { type TaskWarningView, TaskWriteError, taskErrorCode } from '../task-board-api.js';
import type { TaskBoardState } from '../task-board-state.js';
import { type DraftProblem, TASK_LIMITS } from '../task-limits.js';
import type { BoardStrings } from './task-board-strings.js';

/** What the board's parts share. */
export interface BoardContextValue {
  readonly teamId: string;
  readonly board: TaskBoardState;
  readonly s: Accessor<BoardStrings>;
  /** Members a task can be assigned to. */
  readonly members: Accessor<{ id: string; name: string }[]>;
  /** False when the team takes no changes (closed). */
  readonly writable: Accessor<boolean>;
  /** Shows what a write answered (overlap warnings) in the board's status line. */
  readonly notify: (warnings: TaskWarningView[]) => void;
}

export const BoardContext = createContext<BoardContextValue>();

/** The board context; fails loudly outside the board. */
export function useBoard(): BoardContextValue {
  const value = useContext(BoardContext);
  if (!value) throw new Error('[agent-teams/widget] useBoard() must be used inside the task board');
  return value;
}

/** The title of a task of the board, or its id when the board does not hold it. */
export function titleOf(board: TaskBoardState, id: string): string {
  return board.task(id)?.title ?? id;
}

/** Explains a refused board write: the open dependencies, the owner, the cycle by title; else the code. */
export function describeTaskError(error: unknown, ctx: BoardContextValue, t: Strings): string {
  const s = ctx.s();
  const code = taskErrorCode(error);
  const titles = (sep: string) =>
    error instanceof TaskWriteError ? error.ids.map((id) => titleOf(ctx.board, id)).join(sep) : '';
  if (code === 'TASK_BLOCKED') return s.blocked(titles(', '));
  if (code === 'TASK_CYCLE') return s.cycle(titles(' → '));
  if (code === 'TASK_CLAIMED' && error instanceof TaskWriteError) return s.claimed(error.owner ?? '');
  if (code === 'TASK_LIMIT') return s.limit(TASK_LIMITS.tasksPerTeam);
  if (code === 'TASK_STALE_REVISION' && error instanceof TaskWriteError)
    return s.stale.card(error.currentRevision ?? 0);
  return t.common.error(code);
}

/** The sentence for a draft the server would refuse, in the wording of the widget's other limits. */
export function describeDraftProblem(problem: DraftProblem, s: BoardStrings, t: Strings): string {
  const label = {
    title: s.form.title,
    details: s.form.details,
    scope: s.scopes,
    dependencies: s.dependencies,
    scopes: s.scopes,
  }[problem.field];
  if (problem.problem === 'tooMany') return s.tooMany(label, problem.max);
  if (problem.problem === 'tooLong') return t.common.tooLong(label, problem.limit.chars, problem.limit.bytes);
  return t.common[problem.problem](label);
}
