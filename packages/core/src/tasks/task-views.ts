import type { MemberId } from '../model/ids.js';
import type { Member } from '../model/team.js';
import type { Task, TaskWarning } from './task.js';

/** The contract's `Task` JSON of the member tools (snake_case, members by name, lower-case status). */
export interface TaskJson {
  readonly id: string;
  readonly title: string;
  readonly details: string | null;
  readonly status: 'open' | 'claimed' | 'done' | 'cancelled';
  readonly revision: number;
  readonly depends_on: readonly string[];
  readonly owner: string | null;
  readonly write_scope: readonly string[];
  readonly created_by: string | null;
  readonly result: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/** A member's name for the tools (its id if it is not on the roster any more). */
const nameOf = (roster: ReadonlyMap<MemberId, Member>, id: MemberId | null): string | null =>
  id === null ? null : (roster.get(id)?.name ?? id);

/** A task as the member tools answer it. */
export function taskJson(task: Task, roster: ReadonlyMap<MemberId, Member>): TaskJson {
  return {
    id: task.id,
    title: task.title,
    details: task.details,
    status: task.status.toLowerCase() as TaskJson['status'],
    revision: task.revision,
    depends_on: task.dependsOn,
    owner: nameOf(roster, task.ownerId),
    write_scope: task.writeScope,
    created_by: nameOf(roster, task.createdBy),
    result: task.result,
    created_at: task.createdAt,
    updated_at: task.updatedAt,
  };
}

/** A write-scope warning as the member tools answer it. */
export const warningJson = (warning: TaskWarning) => ({
  kind: warning.kind,
  task_id: warning.taskId,
  scope: warning.scope,
});
