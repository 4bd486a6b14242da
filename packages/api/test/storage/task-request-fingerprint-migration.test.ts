import {
  asAgentId,
  asConversationId,
  asMemberId,
  asOwnerId,
  asTaskId,
  asTeamId,
  decideTask,
  type Task,
  type TaskChange,
  type TaskCommand,
} from '@agent-teams/core';
import { Migrator } from 'kysely';
import { describe, expect } from 'vitest';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { taskRequestFingerprintMigration } from '../../src/storage/migrations/0019-task-request-fingerprint.js';
import { StaticMigrationProvider } from '../../src/storage/migrations/index.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { itUpgradesOnBothDialects } from '../support/migration-upgrade.js';

const NOW = '2026-12-06T15:00:00.000Z';
const TEAM = asTeamId('team_1');
const PERSON = { kind: 'person' } as const;

/** A keyed create of the owner (GraphQL `createTask`), as the core builds it. */
const keyedCreate = (id: string, clientRequestId: string, title: string): TaskCommand => ({
  type: 'create',
  id: asTaskId(id),
  clientRequestId,
  title,
  details: null,
  dependsOn: [],
  writeScope: [],
  assigneeId: null,
});

/**
 * A database at 0018 holding a task created with a key is migrated: the task reads no request
 * fingerprint, and its retries keep the old rule (its current title and details), so after a
 * rename the original input conflicts; a task created after the migration is replayed after a
 * rename. The migration run again (a crash before its record) changes nothing.
 */
async function checkUpgrade(database: OpenedDatabase): Promise<void> {
  const migrator = new Migrator({ db: database.db, provider: new StaticMigrationProvider(database.dialect) });
  expect((await migrator.migrateTo('0018-history-indexes')).error).toBeUndefined();
  const store = new KyselyTeamStore(database.db, database.dialect);
  const members = [0, 1].map((n) => ({
    id: asMemberId(`member_${n}`),
    name: `M${n}`,
    agentId: asAgentId('writer'),
    conversationId: asConversationId(`conversation_${n}`),
  }));
  const newTeam = { id: TEAM, owner: asOwnerId('alice'), clientRequestId: 't', fingerprint: 'f', name: 'T', goal: 'G' };
  await store.createTeam({ ...newTeam, members }, { now: NOW, maxTeams: 10 });
  // Only the columns before 0019: request_fingerprint does not exist yet.
  const lists = { depends_on: '[]', write_scope: '[]', owner_id: null, created_by: null, result: null };
  await database.db
    .insertInto('tasks')
    .values({
      ...{ id: 'task_old', team_id: TEAM, seq: 1, client_request_id: 'old-key', title: 'Plan', details: null },
      ...{ status: 'OPEN', revision: 1, ...lists, created_at: NOW, updated_at: NOW },
    })
    .execute();
  expect(await migrateToLatest(database.db, database.dialect)).toContain('0019-task-request-fingerprint');
  const run = (command: TaskCommand): Promise<TaskChange> =>
    store.changeTask({ teamId: TEAM, now: NOW, decide: (board) => decideTask(board, command, PERSON, NOW) });
  const rename = (task: Task, title: string) =>
    run({ type: 'update', taskId: task.id, expectedRevision: task.revision, title });
  const [old] = await store.findTasks([asTaskId('task_old')]);
  expect(old).toMatchObject({ clientRequestId: 'old-key', requestFingerprint: null });
  expect(await run(keyedCreate('task_x', 'old-key', 'Plan'))).toMatchObject({ changed: false, task: old });
  await rename(old as Task, 'Renamed');
  await expect(run(keyedCreate('task_x', 'old-key', 'Plan'))).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
  const { task: fresh } = await run(keyedCreate('task_new', 'new-key', 'Build'));
  expect(fresh.requestFingerprint).toEqual(expect.any(String));
  await rename(fresh, 'Rebuilt');
  expect(await run(keyedCreate('task_y', 'new-key', 'Build'))).toMatchObject({
    changed: false,
    task: { id: 'task_new', title: 'Rebuilt', revision: 2 },
  });
  const read = async () =>
    (await store.findTasks([asTaskId('task_old'), asTaskId('task_new')])).map((t) => [t.id, t.requestFingerprint]);
  const before = await read();
  await taskRequestFingerprintMigration(database.dialect).up(database.db);
  expect(await read()).toEqual(before);
}

describe('migration 0019-task-request-fingerprint', () => {
  itUpgradesOnBothDialects(
    'task_request_fingerprint',
    'older tasks keep the old replay rule, and running it again changes nothing',
    checkUpgrade,
  );
});
