import { JobPhase, TeamStatus } from '@agent-teams/core';
import { Migrator, sql } from 'kysely';
import { describe, expect } from 'vitest';
import { readCandidates } from '../../src/storage/admission-candidates.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { waitingOwnerIndexMigration } from '../../src/storage/migrations/0021-waiting-owner-index.js';
import { StaticMigrationProvider } from '../../src/storage/migrations/index.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { WriteScope } from '../../src/storage/write-transaction.js';
import { bruteForce, jobRow, loadState, NOW, type State } from '../support/candidate-states.js';
import { itUpgradesOnBothDialects } from '../support/migration-upgrade.js';

/** Two owners' jobs in every state a job waits in, or not: the index must hold only QUEUED and ANSWERED ones. */
const STATE: State = {
  teams: [
    { id: 't1', owner: 'o1', status: TeamStatus.READY },
    { id: 't2', owner: 'o2', status: TeamStatus.READY },
  ],
  jobs: [
    [JobPhase.RUNNING, 'a', 't1'],
    [JobPhase.QUEUED, 'a', 't1'],
    [JobPhase.ANSWERED, 'b', 't1'],
    [JobPhase.QUEUED, 'b', 't1'],
    [JobPhase.WAITING_INPUT, 'c', 't2'],
    [JobPhase.QUEUED, 'd', 't2'],
    [JobPhase.COMPLETED, 'd', 't2'],
  ].map(([phase, conversationId, teamId], i) =>
    jobRow({
      id: `j${i}`,
      teamId: teamId as string,
      owner: teamId === 't1' ? 'o1' : 'o2',
      conversationId: conversationId as string,
      phase: phase as string,
      seq: i + 1,
    }),
  ),
  events: [],
  perOwner: 2,
};

/** The index's name if the database has it. */
async function indexNames(database: OpenedDatabase): Promise<string[]> {
  const query =
    database.dialect === 'sqlite'
      ? sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index' and name = 'jobs_waiting_owner_seq_idx'`
      : sql<{ name: string }>`select indexname as name from pg_indexes where indexname = 'jobs_waiting_owner_seq_idx'`;
  return (await query.execute(database.db)).rows.map((row) => row.name);
}

/**
 * A database at 0020 holding jobs is migrated: on SQLite the index holds exactly the waiting jobs
 * and the candidates read through it are right; PostgreSQL gets no index. Run again, it changes nothing.
 */
async function checkUpgrade(database: OpenedDatabase): Promise<void> {
  const migrator = new Migrator({ db: database.db, provider: new StaticMigrationProvider(database.dialect) });
  expect((await migrator.migrateTo('0020-tool-requests')).error).toBeUndefined();
  await loadState(database, STATE);
  expect(await migrateToLatest(database.db, database.dialect)).toContain('0021-waiting-owner-index');
  await waitingOwnerIndexMigration(database.dialect).up(database.db);
  // PostgreSQL's admission reads by conversation: it gets no index it would only write.
  expect(await indexNames(database)).toEqual(database.dialect === 'sqlite' ? ['jobs_waiting_owner_seq_idx'] : []);
  if (database.dialect === 'sqlite') {
    const held = await sql<{ id: string }>`select id from jobs indexed by jobs_waiting_owner_seq_idx
      where unfinished = 1 and phase in ('ANSWERED', 'QUEUED') order by owner, seq`.execute(database.db);
    expect(held.rows.map((row) => row.id)).toEqual(['j1', 'j2', 'j3', 'j5']);
  }
  const scope = new WriteScope(database.db, { db: database.db, dialect: database.dialect, sink: null, ids: null }, NOW);
  const candidates = await readCandidates(scope, STATE.perOwner);
  expect(candidates).toEqual(bruteForce(STATE));
  expect(candidates.map((candidate) => candidate.jobId)).toEqual(['j2', 'j5']);
}

describe('migration 0021-waiting-owner-index', () => {
  itUpgradesOnBothDialects(
    'waiting_owner_index_migration',
    'the index holds the waiting jobs (SQLite only), and running it again changes nothing',
    checkUpgrade,
  );
});
