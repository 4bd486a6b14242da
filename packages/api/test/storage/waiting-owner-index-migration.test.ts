import { JobPhase, TeamStatus } from '@agent-teams/core';
import { Migrator, sql } from 'kysely';
import { describe, expect } from 'vitest';
import { candidatesReadAhead, readCandidates, readCandidatesAhead } from '../../src/storage/admission-candidates.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { waitingOwnerIndexMigration } from '../../src/storage/migrations/0021-waiting-owner-index.js';
import { postgresWaitingOwnerIndexMigration } from '../../src/storage/migrations/0022-postgres-waiting-owner-index.js';
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
 * A database at 0020 holding jobs is migrated: the index exists on both engines (0021 on SQLite,
 * 0022 on PostgreSQL, decision 0260), holds exactly the waiting jobs, and the candidates read
 * through it are right. Run again, neither migration changes anything.
 */
async function checkUpgrade(database: OpenedDatabase): Promise<void> {
  const migrator = new Migrator({ db: database.db, provider: new StaticMigrationProvider(database.dialect) });
  expect((await migrator.migrateTo('0020-tool-requests')).error).toBeUndefined();
  await loadState(database, STATE);
  const applied = await migrateToLatest(database.db, database.dialect);
  expect(applied).toContain('0021-waiting-owner-index');
  expect(applied).toContain('0022-postgres-waiting-owner-index');
  await waitingOwnerIndexMigration(database.dialect).up(database.db);
  await postgresWaitingOwnerIndexMigration(database.dialect).up(database.db);
  expect(await indexNames(database)).toEqual(['jobs_waiting_owner_seq_idx']);
  const held =
    database.dialect === 'sqlite'
      ? await sql<{ id: string }>`select id from jobs indexed by jobs_waiting_owner_seq_idx
      where unfinished = 1 and phase in ('ANSWERED', 'QUEUED') order by owner, seq`.execute(database.db)
      : await sql<{ id: string }>`select id from jobs where unfinished = 1 and phase in ('ANSWERED', 'QUEUED')
      order by owner, seq`.execute(database.db);
  expect(held.rows.map((row) => row.id)).toEqual(['j1', 'j2', 'j3', 'j5']);
  if (database.dialect === 'postgres') {
    const { rows } = await sql<{ def: string }>`select indexdef as def from pg_indexes
      where indexname = 'jobs_waiting_owner_seq_idx'`.execute(database.db);
    expect(rows[0]?.def).toMatch(/\(owner, seq\) WHERE \(\(unfinished = 1\) AND \(phase = ANY/);
    // An operator's concurrent build that failed leaves an invalid index of that name: built again.
    await sql`drop index jobs_waiting_owner_seq_idx`.execute(database.db);
    await expect(
      sql`create unique index concurrently jobs_waiting_owner_seq_idx on jobs (team_id)`.execute(database.db),
    ).rejects.toThrow(/could not create unique index/);
    await postgresWaitingOwnerIndexMigration(database.dialect).up(database.db);
    const rebuilt = await sql<{ def: string; valid: boolean }>`select pg_get_indexdef(i.indexrelid) as def,
      i.indisvalid as valid from pg_index as i join pg_class as c on c.oid = i.indexrelid
      where c.relname = 'jobs_waiting_owner_seq_idx'`.execute(database.db);
    expect(rebuilt.rows).toEqual([{ def: expect.stringMatching(/\(owner, seq\) WHERE/), valid: true }]);
  }
  const scope = new WriteScope(database.db, { db: database.db, dialect: database.dialect, sink: null, ids: null }, NOW);
  // PostgreSQL's admission reads ahead, walking the index (decision 0260).
  const candidates =
    database.dialect === 'sqlite'
      ? await readCandidates(scope, STATE.perOwner)
      : await candidatesReadAhead(
          scope,
          readCandidatesAhead(scope, STATE.perOwner, 2 + STATE.perOwner),
          STATE.perOwner,
        );
  expect(candidates).toEqual(bruteForce(STATE));
  expect(candidates.map((candidate) => candidate.jobId)).toEqual(['j2', 'j5']);
}

describe('migrations 0021-waiting-owner-index and 0022-postgres-waiting-owner-index', () => {
  itUpgradesOnBothDialects(
    'waiting_owner_index_migration',
    'the index holds the waiting jobs on both engines, and running them again changes nothing',
    checkUpgrade,
  );
});
