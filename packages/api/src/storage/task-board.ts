import {
  asMemberId,
  asTaskId,
  asTeamId,
  type ChangeTaskArgs,
  type MemberId,
  notFound,
  releasedClaims,
  type SeqPage,
  type SeqPageRequest,
  type Task,
  type TaskChange,
  type TaskFilter,
  type TaskId,
  type TaskStatus,
  TeamEventKind,
  type TeamId,
  type TeamStatus,
} from '@agent-teams/core';
import type { Kysely, Selectable } from 'kysely';
import type { Database, TasksTable } from './database-types.js';
import { toMember } from './row-mappers.js';
import { readStoredStrings } from './stored-json.js';
import { recordedToolRequest, recordToolRequest } from './tool-requests.js';
import type { WriteScope } from './write-transaction.js';

/**
 * What a task depends on when its stored list no longer reads: a dependency no task has, so the
 * task reads as blocked (`TASK_BLOCKED` names this) until a person sets its dependencies again.
 * Read as no dependencies, a task that waited for others would be claimable at once.
 */
export const LOST_DEPENDENCIES = asTaskId('(its dependency list no longer reads)');

/** A task's dependencies, or {@link LOST_DEPENDENCIES} when they no longer read (reported once). */
function readDependencies(row: Selectable<TasksTable>): TaskId[] {
  const at = { table: 'tasks', column: 'depends_on', id: row.id, readAs: 'a dependency no task has (blocked)' };
  return readStoredStrings(at, row.depends_on, [LOST_DEPENDENCIES]).map(asTaskId);
}

/** Maps a `tasks` row to a {@link Task}. */
export function toTask(row: Selectable<TasksTable>): Task {
  return {
    id: asTaskId(row.id),
    teamId: asTeamId(row.team_id),
    seq: Number(row.seq),
    clientRequestId: row.client_request_id,
    // NULL for tasks created before migration 0019: their retries compare the task's fields.
    requestFingerprint: row.request_fingerprint,
    title: row.title,
    details: row.details,
    status: row.status as TaskStatus,
    revision: Number(row.revision),
    dependsOn: readDependencies(row),
    ownerId: row.owner_id === null ? null : asMemberId(row.owner_id),
    // Scopes only warn of overlaps: lost ones warn of nothing (reported once).
    writeScope: readStoredStrings({ table: 'tasks', column: 'write_scope', id: row.id }, row.write_scope),
    createdBy: row.created_by === null ? null : asMemberId(row.created_by),
    result: row.result,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The columns a change writes (everything but the identity of the task). */
const changedColumns = (task: Task) => ({
  title: task.title,
  details: task.details,
  status: task.status,
  revision: task.revision,
  depends_on: JSON.stringify(task.dependsOn),
  owner_id: task.ownerId,
  write_scope: JSON.stringify(task.writeScope),
  result: task.result,
  updated_at: task.updatedAt,
});

async function boardTasks(scope: WriteScope, teamId: TeamId): Promise<Task[]> {
  const rows = await scope.trx.selectFrom('tasks').selectAll().where('team_id', '=', teamId).orderBy('seq').execute();
  return rows.map(toTask);
}

/**
 * Writes one decided task: an insert, or an update conditional on the revision the decision read
 * (the team row is locked, so the condition always holds; if it ever did not, the transaction
 * fails rather than overwrite a newer revision).
 */
async function writeTask(scope: WriteScope, task: Task, previousRevision: number | null, reason: string | null) {
  if (previousRevision === null) {
    await scope.trx
      .insertInto('tasks')
      .values({
        id: task.id,
        team_id: task.teamId,
        seq: task.seq,
        client_request_id: task.clientRequestId,
        request_fingerprint: task.requestFingerprint,
        created_by: task.createdBy,
        created_at: task.createdAt,
        ...changedColumns(task),
      })
      .execute();
  } else {
    const result = await scope.trx
      .updateTable('tasks')
      .set(changedColumns(task))
      .where('id', '=', task.id)
      .where('revision', '=', previousRevision)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw new Error(`task ${task.id} moved past revision ${previousRevision}`);
  }
  await scope.events.emit(task.teamId, TeamEventKind.TASK_CHANGED, { taskId: task.id, reason });
}

/**
 * `Tasks.changeTask`: the board read, the decision and the write in the caller's transaction, with
 * the key of a member's keyed write read before the decision and recorded after it.
 */
export async function changeTask(scope: WriteScope, args: Omit<ChangeTaskArgs, 'now'>): Promise<TaskChange> {
  const team = await scope.lockTeam(args.teamId);
  if (team === undefined) throw notFound('team');
  const request = args.request ?? null;
  const [tasks, members, recorded] = await Promise.all([
    boardTasks(scope, args.teamId),
    scope.trx.selectFrom('members').selectAll().where('team_id', '=', args.teamId).orderBy('position').execute(),
    request === null ? null : recordedToolRequest(scope, args.teamId, request.key),
  ]);
  const outcome = args.decide({
    teamId: args.teamId,
    teamStatus: team.status as TeamStatus,
    tasks,
    members: members.map(toMember),
    recorded,
  });
  if (!outcome.ok) throw outcome.error;
  if (outcome.value.changed) await writeTask(scope, outcome.value.task, outcome.value.previousRevision, null);
  // Recorded with the change, in its commit: a replay of the call then finds it (`ToolRequest`).
  if (request !== null && recorded === null)
    await recordToolRequest(scope, args.teamId, request, outcome.value.task.id);
  return outcome.value;
}

/**
 * `Tasks.releaseClaims` inside a caller's transaction: the retire and close writes call this in
 * theirs, so the claims go back in the same commit as the member's or team's change.
 */
export async function releaseClaimsIn(
  scope: WriteScope,
  teamId: TeamId,
  memberId: MemberId | null,
  reason: string,
): Promise<readonly Task[]> {
  const released = releasedClaims(await boardTasks(scope, teamId), memberId, scope.now);
  for (const task of released) await writeTask(scope, task, task.revision - 1, reason);
  return released;
}

/** `Tasks.listTasks`: board order, filters in SQL, one more row than asked to know if there is more. */
export async function listTasks(
  db: Kysely<Database>,
  teamId: TeamId,
  filter: TaskFilter,
  page: SeqPageRequest,
): Promise<SeqPage<Task> & { totalCount: number }> {
  let base = db.selectFrom('tasks').where('team_id', '=', teamId);
  if (filter.status !== null) base = base.where('status', '=', filter.status);
  if (filter.ownerId !== null) base = base.where('owner_id', '=', filter.ownerId);
  const after = page.afterSeq;
  const [rows, total] = await Promise.all([
    (after === null ? base : base.where('seq', '>', after))
      .selectAll()
      .orderBy('seq')
      // Bound: a caller's page size (1–100, a member's 1–20); in the text it would add a statement
      // per size to a statement cache of 500 texts and could evict a turn's (decision 0231).
      .limit(page.first + 1)
      .execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    items: rows.slice(0, page.first).map(toTask),
    hasNextPage: rows.length > page.first,
    totalCount: Number(total.n),
  };
}

/** `Tasks.findTasks`. */
export async function findTasks(db: Kysely<Database>, taskIds: readonly TaskId[]): Promise<Task[]> {
  if (taskIds.length === 0) return [];
  const rows = await db
    .selectFrom('tasks')
    .selectAll()
    .where('id', 'in', [...new Set(taskIds)])
    .execute();
  return rows.map(toTask);
}
