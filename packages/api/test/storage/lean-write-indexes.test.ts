import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asOwnerId } from '@agent-teams/core';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { unfinishedJobCounts } from '../../src/observability/metrics.js';
import { waitingJobs } from '../../src/storage/job-reads.js';
import { JOB_VIEW_COLUMNS } from '../../src/storage/job-view-rows.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { leanWriteIndexesMigration } from '../../src/storage/migrations/0014-lean-write-indexes.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres } from '../support/fresh-postgres.js';
import { indexNames, sqlitePlan } from '../support/index-plans.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-lean-indexes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('migration 0014 (decision 0231): an index every model call wrote for nothing is gone', () => {
  it('SQLite: model_usage keeps one team index, the inbox its index, the metrics read unfinished jobs only', async () => {
    const opened = await openDatabase(join(dir, 'plan.sqlite'));
    try {
      expect(await migrateToLatest(opened.db, opened.dialect)).toContain('0014-lean-write-indexes');
      const names = await indexNames(opened.db, 'sqlite');
      expect(names).toContain('model_usage_team_idx');
      expect(names).not.toContain('model_usage_team_id_idx');
      // Migration 0015 then replaced the inbox's full index by a partial one.
      expect(names).toContain('jobs_waiting_input_idx');
      expect(names).not.toContain('jobs_owner_phase_seq_idx');
      const team = sql<number>`select count(*) from model_usage where team_id = 'team_1'`.compile(opened.db);
      expect(await sqlitePlan(opened.db, team)).toMatch(/USING (COVERING )?INDEX model_usage_team_idx \(team_id=\?\)/);
      const inbox = waitingJobs(opened.db, asOwnerId('owner_1'))
        .select(JOB_VIEW_COLUMNS)
        .orderBy('seq')
        .limit(21)
        .compile();
      expect(await sqlitePlan(opened.db, inbox)).toMatch(/USING INDEX jobs_waiting_input_idx \(owner=\?\)/);
      // The metrics' job counts walk the unfinished jobs, not every job ever run.
      const counts = await sqlitePlan(opened.db, unfinishedJobCounts(opened.db).compile());
      // (Migration 0016 replaced the phase index by the phase-and-lease one.)
      expect(counts).toMatch(/USING (COVERING )?INDEX jobs_unfinished_phase_lease_idx/);
      expect(counts).not.toMatch(/SCAN jobs/);
      // The migration's statement run again (a crash before its record) changes nothing.
      await leanWriteIndexesMigration().up(opened.db);
      expect(await indexNames(opened.db, 'sqlite')).toEqual(names);
    } finally {
      await opened.close();
    }
  });

  it('PostgreSQL: the same indexes, and the generic plan of the metrics counts uses a partial index', async () => {
    const database = await createFreshPostgres('lean_write_indexes');
    const opened = await openDatabase(database.url);
    try {
      await migrateToLatest(opened.db, opened.dialect);
      const names = await indexNames(opened.db, 'postgres');
      expect(names).toContain('model_usage_team_idx');
      expect(names).not.toContain('model_usage_team_id_idx');
      expect(names).toContain('jobs_waiting_input_idx');
      expect(names).not.toContain('jobs_owner_phase_seq_idx');
      // Generic plan (parameters unknown), scans off so an empty table shows which index the
      // planner can use at all; one connection, so the settings hold.
      await opened.db.connection().execute(async (connection) => {
        await sql`set enable_seqscan = off`.execute(connection);
        await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
        const counts = unfinishedJobCounts(connection).compile();
        await connection.executeQuery(CompiledQuery.raw(`prepare lean_counts as ${counts.sql}`));
        // Its phases are literals now (decision 0235): no parameter is left to bind.
        expect(counts.parameters).toEqual([]);
        const plan = await connection.executeQuery(CompiledQuery.raw('explain execute lean_counts'));
        const text = plan.rows.map((row) => Object.values(row as object).join(' ')).join(' | ');
        // Some partial index of unfinished jobs (on an empty table the planner may take any of them).
        expect(text).toMatch(/jobs_unfinished_\w+_idx/);
        expect(text).not.toMatch(/Seq Scan/);
      });
    } finally {
      await opened.close();
      await database.drop();
    }
  });
});
