import type { Brand, MemberId, TeamId } from '../model/ids.js';
import type { Timestamp } from '../ports/clock.js';

/** A task of a team's shared board (`task_…`). */
export type TaskId = Brand<string, 'TaskId'>;

/** Tags a string read from storage or checked by a parse function as a task id. */
export const asTaskId = (value: string): TaskId => value as TaskId;

/**
 * Where a task stands. OPEN: nobody owns it (new, released, or its owner was retired or its team
 * closed). CLAIMED: one member owns it. DONE: completed, with an optional result. CANCELLED: given
 * up by its creator or the lead; it stays listed. DONE and CANCELLED are final.
 */
export const TaskStatus = {
  OPEN: 'OPEN',
  CLAIMED: 'CLAIMED',
  DONE: 'DONE',
  CANCELLED: 'CANCELLED',
} as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

/** True for DONE and CANCELLED: nothing changes a finished task any more. */
export const isFinishedTask = (status: TaskStatus): boolean =>
  status === TaskStatus.DONE || status === TaskStatus.CANCELLED;

/** One task of a team's board. */
export interface Task {
  readonly id: TaskId;
  readonly teamId: TeamId;
  /** Creation order within the team, from 1: the board's list order and its cursor anchor. */
  readonly seq: number;
  /** The creator's idempotency key (GraphQL `createTask`); null when a member created it. */
  readonly clientRequestId: string | null;
  /**
   * The hash of the input of the keyed creation (see `createFingerprint`), which a retry under the
   * same `clientRequestId` must match; null without a key, and for tasks created before it was
   * stored (migration 0019).
   */
  readonly requestFingerprint: string | null;
  readonly title: string;
  readonly details: string | null;
  readonly status: TaskStatus;
  /** Starts at 1; +1 on every change (the compare-and-set token of every write). */
  readonly revision: number;
  /** Tasks of the same team that must be DONE before this one can be claimed. */
  readonly dependsOn: readonly TaskId[];
  readonly ownerId: MemberId | null;
  readonly writeScope: readonly string[];
  /** The member who created it; null when a person did (GraphQL). */
  readonly createdBy: MemberId | null;
  readonly result: string | null;
  readonly createdAt: Timestamp;
  readonly updatedAt: Timestamp;
}

/** A write scope that overlaps an unfinished task's scope: accepted, and reported. */
export interface TaskWarning {
  readonly kind: 'write_scope_overlap';
  /** The other task. */
  readonly taskId: TaskId;
  /** The other task's scope that overlaps. */
  readonly scope: string;
}

/** Who writes to the board: a member (through its tools) or the team's owner (GraphQL). */
export type TaskActor =
  | { readonly kind: 'member'; readonly memberId: MemberId; readonly isLead: boolean }
  | { readonly kind: 'person' };
