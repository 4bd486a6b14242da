import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asOwnerId, JobPhase } from '@agent-teams/core';
import { CompiledQuery, type Kysely, Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database-types.js';
import { waitingJobs } from '../../src/storage/job-reads.js';
import { JOB_VIEW_COLUMNS } from '../../src/storage/job-view-rows.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { waitingInputIndexMigration } from '../../src/storage/migrations/0015-waiting-input-index.js';
import { StaticMigrationProvider } from '../../src/storage/migrations/index.js';
import { type DatabaseDialect, openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres } from '../support/fresh-postgres.js';
import { indexNames, postgresGenericPlans } from '../support/index-plans.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-waiting-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = '2026-12-05T07:00:00.000Z';

/** Jobs as a database at migration 0014 held them: two owners, each with jobs in every kind of phase. */
const SEEDED: readonly (readonly [id: string, owner: 'a' | 'b', phase: JobPhase])[] = [
  ['job_1', 'a', JobPhase.WAITING_INPUT],
  ['job_2', 'a', JobPhase.RUNNING],
  ['job_3', 'b', JobPhase.WAITING_INPUT],
  ['job_4', 'a', JobPhase.COMPLETED],
  ['job_5', 'a', JobPhase.WAITING_INPUT],
  ['job_6', 'b', JobPhase.QUEUED],
  ['job_7', 'a', JobPhase.ANSWERED],
];

async function seedBefore(db: Kysely<Database>): Promise<void> {
  for (const owner of ['a', 'b']) {
    await sql`insert into teams (id, owner, client_request_id, fingerprint, name, goal, status, revision, last_event_seq, created_at, updated_at)
      values (${`team_${owner}`}, ${`owner_${owner}`}, ${`create-${owner}`}, 'f', 'T', 'g', 'READY', 1, 0, ${NOW}, ${NOW})`.execute(
      db,
    );
  }
  for (const [id, owner, phase] of SEEDED) {
    const unfinished = phase === JobPhase.COMPLETED ? 0 : 1;
    await sql`insert into jobs (id, team_id, owner, kind, phase, unfinished, conversation_id, requester_key, root_id,
        client_key, text, created_at, updated_at)
      values (${id}, ${`team_${owner}`}, ${`owner_${owner}`}, 'REQUEST', ${phase}, ${unfinished}, ${`conversation_${id}`},
        '', ${id}, ${id}, 'Do it', ${NOW}, ${NOW})`.execute(db);
  }
}

/** Migrates a 0014 database with waiting jobs, then checks the inbox reads them through the new index. */
async function checkMigration(db: Kysely<Database>, dialect: DatabaseDialect): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider(dialect) });
  expect((await migrator.migrateTo('0014-lean-write-indexes')).error).toBeUndefined();
  await seedBefore(db);
  const before = await indexNames(db, dialect, 'jobs');
  expect(before).toContain('jobs_owner_phase_seq_idx');

  // Up to 0015 only: later migrations change other indexes of `jobs`.
  const migrated = await migrator.migrateTo('0015-waiting-input-index');
  expect(migrated.error).toBeUndefined();
  expect(migrated.results?.map((result) => result.migrationName)).toEqual(['0015-waiting-input-index']);
  const after = await indexNames(db, dialect, 'jobs');
  expect(after).toContain('jobs_waiting_input_idx');
  expect(after).not.toContain('jobs_owner_phase_seq_idx');

  // The inbox lists exactly each owner's waiting jobs, oldest first, with their count.
  const store = new KyselyTeamStore(db, dialect);
  const inbox = await store.listWaitingJobs(asOwnerId('owner_a'), { first: 10, afterSeq: null });
  expect(inbox.items.map((job) => job.id)).toEqual(['job_1', 'job_5']);
  expect(inbox.totalCount).toBe(2);
  const next = await store.listWaitingJobs(asOwnerId('owner_a'), { first: 1, afterSeq: inbox.items[0]?.seq ?? 0 });
  expect(next.items.map((job) => job.id)).toEqual(['job_5']);
  expect((await store.listWaitingJobs(asOwnerId('owner_b'), { first: 10, afterSeq: null })).totalCount).toBe(1);

  // Run again (a crash before the migration's record): nothing changes.
  await waitingInputIndexMigration().up(db);
  expect(await indexNames(db, dialect, 'jobs')).toEqual(after);
}

describe('migration 0015 (decision 0235): the inbox index is partial, of the jobs waiting for a person', () => {
  it('SQLite: built from the jobs there, the full index dropped, idempotent, and the inbox reads it', async () => {
    const opened = await openDatabase(join(dir, 'migrate.sqlite'));
    try {
      await checkMigration(opened.db, opened.dialect);
      const page = waitingJobs(opened.db, asOwnerId('owner_a'))
        .select(JOB_VIEW_COLUMNS)
        .orderBy('seq')
        .limit(21)
        .compile();
      const plan = await opened.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${page.sql}`, [...page.parameters]),
      );
      expect(plan.rows.map((row) => row.detail).join(' | ')).toMatch(/USING INDEX jobs_waiting_input_idx \(owner=\?\)/);
    } finally {
      await opened.close();
    }
  });

  it('PostgreSQL: the same, and the inbox’s generic plan can use the partial index', async () => {
    const database = await createFreshPostgres('waiting_input_index', { migrate: false });
    const opened = await openDatabase(database.url);
    try {
      await checkMigration(opened.db, opened.dialect);
      await postgresGenericPlans(opened.db, async (explain) => {
        const page = waitingJobs(opened.db, asOwnerId('owner_a'))
          .select(JOB_VIEW_COLUMNS)
          .orderBy('seq')
          .limit(21)
          .compile();
        const text = await explain('inbox_page', page);
        expect(text).toMatch(/jobs_waiting_input_idx/);
        expect(text).toMatch(/\$1/);
      });
    } finally {
      await opened.close();
      await database.drop();
    }
  });
});
