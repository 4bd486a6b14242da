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
import { leanWriteIndexesMigration } from '../../src/storage/migrations/0014-lean-write-indexes.js';
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
      // The migration's statements run again (a crash before its record) change nothing.
      await leanWriteIndexesMigration().up(opened.db);
      expect(await indexNames(opened.db, 'sqlite')).toEqual(names);
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
      expect(names).toContain('model_usage_team_idx');
      expect(names).not.toContain('jobs_owner_phase_seq_idx');
      expect(names).not.toContain('model_usage_team_id_idx');
      const found = await sql<{
        indexdef: string;
      }>`select indexdef from pg_indexes where indexname = 'jobs_waiting_owner_seq_idx'`.execute(opened.db);
      expect(found.rows[0]?.indexdef).toMatch(/\(owner, seq\) WHERE \(phase = 'WAITING_INPUT'::text\)/);
      // Generic plans (what a prepared statement may settle on: parameters unknown), with scans
      // off so an empty table shows which index the planner can use at all; one connection, so the
      // settings hold for every statement.
      await opened.db.connection().execute(async (connection) => {
        await sql`set enable_seqscan = off`.execute(connection);
        await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
        const statements = [
          ...inboxStatements(connection).map((statement) => ({ statement, index: /jobs_waiting_owner_seq_idx/ })),
          // Any of the partial indexes of unfinished jobs: on an empty table the planner may take
          // the leases' (same rows) rather than the phases'.
          { statement: unfinishedJobCounts(connection).compile(), index: /jobs_unfinished_(phase|lease)_idx/ },
        ];
        for (const [i, { statement, index }] of statements.entries()) {
          await connection.executeQuery(CompiledQuery.raw(`prepare lean_${i} as ${statement.sql}`));
          const values = statement.parameters.map((value) => (typeof value === 'number' ? value : `'${value}'`));
          const plan = await connection.executeQuery(
            CompiledQuery.raw(`explain execute lean_${i}(${values.join(', ')})`),
          );
          const text = plan.rows.map((row) => Object.values(row as object).join(' ')).join(' | ');
          expect(text).toMatch(index);
          // Generic: the plan names the parameters, not the values they were run with.
          if (statement.parameters.length > 0) expect(text).toMatch(/\$1/);
          expect(text).not.toMatch(/Seq Scan/);
        }
      });
    } finally {
      await opened.close();
      await database.drop();
    }
  });
});
