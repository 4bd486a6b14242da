import {
  asAgentId,
  asConversationId,
  asMemberId,
  asOwnerId,
  asTaskId,
  asTeamId,
  decideKeyedTask,
  type TaskCommand,
  type ToolRequest,
} from '@agent-teams/core';
import { Migrator } from 'kysely';
import { describe, expect } from 'vitest';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { toolRequestsMigration } from '../../src/storage/migrations/0020-tool-requests.js';
import { StaticMigrationProvider } from '../../src/storage/migrations/index.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { itUpgradesOnBothDialects } from '../support/migration-upgrade.js';

const NOW = '2026-12-06T21:00:00.000Z';
const TEAM = asTeamId('team_1');
const OWNER = asOwnerId('alice');
const MEMBER = asMemberId('member_1');

/**
 * A database at 0019 with a task is migrated: a keyed claim records its key, and its replay
 * answers the task though its revision is stale. The migration run again (a SQLite start killed
 * before its record) keeps the keys; the team's deletion takes them along.
 */
async function checkUpgrade(database: OpenedDatabase): Promise<void> {
  const migrator = new Migrator({ db: database.db, provider: new StaticMigrationProvider(database.dialect) });
  expect((await migrator.migrateTo('0019-task-request-fingerprint')).error).toBeUndefined();
  const store = new KyselyTeamStore(database.db, database.dialect);
  const member = { id: MEMBER, name: 'M1', agentId: asAgentId('writer'), conversationId: asConversationId('c_1') };
  const team = { id: TEAM, owner: OWNER, clientRequestId: 't', fingerprint: 'f', name: 'T', goal: 'G' };
  await store.createTeam({ ...team, members: [member] }, { now: NOW, maxTeams: 10 });
  expect(await migrateToLatest(database.db, database.dialect)).toContain('0020-tool-requests');
  const actor = { kind: 'member', memberId: MEMBER, isLead: false } as const;
  const run = (command: TaskCommand, request: ToolRequest | null) =>
    store.changeTask({
      teamId: TEAM,
      now: NOW,
      request,
      decide: (board) => decideKeyedTask(board, command, actor, NOW, request),
    });
  const create = { type: 'create', id: asTaskId('task_1'), clientRequestId: null, title: 'Plan' } as const;
  await run({ ...create, details: null, dependsOn: [], writeScope: [], assigneeId: null }, null);
  const claim = { type: 'claim', taskId: asTaskId('task_1'), expectedRevision: 1 } as const;
  const request = { key: `tool:${MEMBER}:claim`, fingerprint: 'f' };
  await run(claim, request);
  await toolRequestsMigration().up(database.db);
  expect(await run(claim, request)).toMatchObject({ changed: false, task: { revision: 2 } });
  const keys = () => database.db.selectFrom('tool_requests').select(['request_key', 'answer_id']).execute();
  expect(await keys()).toEqual([{ request_key: request.key, answer_id: 'task_1' }]);
  await store.deleteTeam(OWNER, TEAM, NOW);
  expect(await keys()).toEqual([]);
}

describe('migration 0020-tool-requests', () => {
  itUpgradesOnBothDialects(
    'tool_requests_migration',
    'keyed writes record their keys, running it again keeps them, and they go with their team',
    checkUpgrade,
  );
});
