import type { MemberId, TeamId } from '../model/ids.js';
import type { Member, TeamStatus } from '../model/team.js';
import type { RecordedToolRequest } from '../ports/store/tool-requests.js';
import type { Task, TaskId, TaskWarning } from './task.js';

/** What a board write sees, read inside the store's transaction with the team locked. */
export interface TaskBoard {
  readonly teamId: TeamId;
  readonly teamStatus: TeamStatus;
  /** Every task of the team, in board (creation) order. */
  readonly tasks: readonly Task[];
  /** The team's roster, retired members included. */
  readonly members: readonly Member[];
  /**
   * What the write's idempotency key (`ChangeTaskArgs.request`) recorded when a write under it
   * succeeded before (a tool call run again after a crash); absent or null otherwise.
   */
  readonly recorded?: RecordedToolRequest | null;
}

/** A write to an existing task: it names the revision it was based on. */
interface TaskWriteBase {
  readonly taskId: TaskId;
  readonly expectedRevision: number;
}

/**
 * A validated write to the board (texts and lists already checked by `task-input.ts`). `update`
 * leaves absent fields as they are.
 */
export type TaskCommand =
  | {
      readonly type: 'create';
      readonly id: TaskId;
      readonly clientRequestId: string | null;
      readonly title: string;
      readonly details: string | null;
      readonly dependsOn: readonly TaskId[];
      readonly writeScope: readonly string[];
      readonly assigneeId: MemberId | null;
    }
  | (TaskWriteBase & {
      readonly type: 'update';
      readonly title?: string;
      readonly details?: string | null;
      readonly dependsOn?: readonly TaskId[];
      readonly writeScope?: readonly string[];
    })
  | (TaskWriteBase & { readonly type: 'claim' })
  | (TaskWriteBase & { readonly type: 'complete'; readonly result: string | null })
  | (TaskWriteBase & { readonly type: 'release' })
  | (TaskWriteBase & { readonly type: 'cancel' })
  | (TaskWriteBase & { readonly type: 'assign'; readonly memberId: MemberId | null });

/** The kinds of {@link TaskCommand}. */
export type TaskCommandType = TaskCommand['type'];

/** The outcome of a board write: the task as it is now, and what the store must write. */
export interface TaskChange {
  readonly task: Task;
  readonly warnings: readonly TaskWarning[];
  /** False for a write that changes nothing (a replayed create, a member claiming its own task). */
  readonly changed: boolean;
  /** The revision the store compares before writing; null for a new task. */
  readonly previousRevision: number | null;
}
