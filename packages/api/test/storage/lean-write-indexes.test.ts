import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asOwnerId } from '@agent-teams/core';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { unfinishedJobCounts } from '../../src/observability/metrics.js';
import type { Database } from '../../src/storage/database-types.js';
import { waitingJobs } from '../../src/storage/job-reads.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres } from '../support/fresh-postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-lean-indexes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The inbox's two statements as `listWaitingJobs` runs them: the total, and a page after a seq. */
function inboxStatements(db: Kysely<Database>) {
  const owner = asOwnerId('owner_1');
  return [
    waitingJobs(db, owner)
      .select((eb) => eb.fn.countAll().as('n'))
      .compile(),
    waitingJobs(db, owner).selectAll().where('seq', '>', 5).orderBy('seq').limit(21).compile(),
  ];
}

async function indexNames(db: Kysely<Database>, dialect: 'sqlite' | 'postgres'): Promise<string[]> {
  const rows =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db)
      : await sql<{
          name: string;
        }>`select indexname as name from pg_indexes where schemaname = current_schema()`.execute(db);
  return rows.rows.map((row) => row.name);
}

describe('migration 0014: the indexes a turn writes and nothing needs are gone', () => {
  it('SQLite: the inbox is planned on the partial index of waiting jobs; the old indexes are dropped', async () => {
    const opened = await openDatabase(join(dir, 'plan.sqlite'));
    try {
      expect(await migrateToLatest(opened.db, opened.dialect)).toContain('0014-lean-write-indexes');
      const names = await indexNames(opened.db, 'sqlite');
      expect(names).toContain('jobs_waiting_owner_seq_idx');
      expect(names).toContain('model_usage_team_idx');
      expect(names).not.toContain('jobs_owner_phase_seq_idx');
      expect(names).not.toContain('model_usage_team_id_idx');
      for (const statement of inboxStatements(opened.db)) {
        // The phase is in the text, not a parameter: the partial index's WHERE is visibly implied.
        expect(statement.sql).toContain(`"phase" = 'WAITING_INPUT'`);
        const plan = await opened.db.executeQuery(
          CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.parameters]),
        );
        const details = plan.rows.map((row) => (row as { detail: string }).detail).join(' | ');
        expect(details).toMatch(/USING (COVERING )?INDEX jobs_waiting_owner_seq_idx/);
        expect(details).not.toMatch(/SCAN jobs|TEMP B-TREE/);
      }
      // The metrics' job counts read the unfinished jobs only, not every job ever run.
      const counts = unfinishedJobCounts(opened.db).compile();
      const plan = await opened.db.executeQuery(
        CompiledQuery.raw(`explain query plan ${counts.sql}`, [...counts.parameters]),
      );
      const details = plan.rows.map((row) => (row as { detail: string }).detail).join(' | ');
      expect(details).toMatch(/USING (COVERING )?INDEX jobs_unfinished_phase_idx/);
      expect(details).not.toMatch(/SCAN jobs/);
    } finally {
      await opened.close();
    }
  });

  it('PostgreSQL: the same indexes, and the inbox can use the partial one', async () => {
    const database = await createFreshPostgres('lean_write_indexes');
    const opened = await openDatabase(database.url);
    try {
      await migrateToLatest(opened.db, opened.dialect);
      const names = await indexNames(opened.db, 'postgres');
      expect(names).toContain('jobs_waiting_owner_seq_idx');
      expect(names).not.toContain('jobs_owner_phase_seq_idx');
      expect(names).not.toContain('model_usage_team_id_idx');
      const found = await sql<{
        indexdef: string;
      }>`select indexdef from pg_indexes where indexname = 'jobs_waiting_owner_seq_idx'`.execute(opened.db);
      expect(found.rows[0]?.indexdef).toMatch(/\(owner, seq\) WHERE \(phase = 'WAITING_INPUT'::text\)/);
      // An empty table is scanned whatever indexes exist; with scans off, the planner shows which
      // index it can use at all (one connection, so the setting holds for the EXPLAIN).
      await opened.db.connection().execute(async (connection) => {
        await sql`set enable_seqscan = off`.execute(connection);
        for (const statement of inboxStatements(connection)) {
          const plan = await connection.executeQuery(
            CompiledQuery.raw(`explain ${statement.sql}`, [...statement.parameters]),
          );
          const text = plan.rows.map((row) => Object.values(row as object).join(' ')).join(' | ');
          expect(text).toMatch(/jobs_waiting_owner_seq_idx/);
        }
      });
    } finally {
      await opened.close();
      await database.drop();
    }
  });
});
