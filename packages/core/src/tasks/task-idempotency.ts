import { ErrorCode } from '../errors/codes.js';
import { DomainError, err, ok, type Result } from '../errors/domain-error.js';
import { hashFilter } from '../pagination/cursor.js';
import type { Task } from './task.js';
import type { TaskChange, TaskCommand } from './task-command.js';

/** A `create` command of the board. */
type CreateCommand = Extract<TaskCommand, { type: 'create' }>;

/**
 * The hash of what a keyed `create` asked for (its validated input, the new task's id aside),
 * stored with the task as {@link Task.requestFingerprint}. The same {@link hashFilter} as the
 * fingerprints of team creations, spawns and answers.
 *
 * @remarks Dependencies and write scopes are sets (their duplicates are already folded): sorted,
 * so a retry that lists them in another order is still the same request.
 */
export function createFingerprint(command: CreateCommand): string {
  return hashFilter({
    title: command.title,
    details: command.details,
    dependsOn: [...command.dependsOn].sort(),
    writeScope: [...command.writeScope].sort(),
    assigneeId: command.assigneeId,
  });
}

/**
 * A `create` whose `clientRequestId` the board already holds (`twin` is the task it created): a
 * retry of the same request answers the task as it is now, changing nothing; any other input is
 * IDEMPOTENCY_CONFLICT.
 *
 * @remarks The retry is compared with the stored fingerprint of the original request, not with
 * the task's fields: a teammate may have edited or moved the task since, and a client retrying
 * after a lost answer must still get its task. A task created before migration 0019 has no
 * fingerprint; only its current title and details are left to compare (the rule of that time).
 */
export function replayCreate(twin: Task, command: CreateCommand): Result<TaskChange> {
  const same =
    twin.requestFingerprint === null
      ? twin.title === command.title && twin.details === command.details
      : twin.requestFingerprint === createFingerprint(command);
  if (!same) {
    return err(
      new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, 'clientRequestId was used for another task.', {
        field: 'clientRequestId',
      }),
    );
  }
  return ok({ task: twin, warnings: [], changed: false, previousRevision: twin.revision });
}
