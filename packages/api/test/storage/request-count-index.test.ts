import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres } from '../support/fresh-postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-request-count-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The request counts of `readSnapshot` (job-writes.ts), as Kysely compiles them. */
const COUNTS = `select "root_id", count(*) as "n" from "jobs" where "team_id" = 'team_1' and "kind" = 'REQUEST' group by "root_id"`;

describe('migration 0013: a send counts its team requests from an index alone', () => {
  it('SQLite plans the count on jobs_team_kind_root_idx as a covering index (no row read)', async () => {
    const opened = await openDatabase(join(dir, 'plan.sqlite'));
    try {
      expect(await migrateToLatest(opened.db, opened.dialect)).toContain('0013-request-count-index');
      const plan = await sql.raw(`explain query plan ${COUNTS}`).execute(opened.db);
      const details = plan.rows.map((row) => (row as { detail: string }).detail).join(' | ');
      expect(details).toMatch(/USING COVERING INDEX jobs_team_kind_root_idx/);
    } finally {
      await opened.close();
    }
  });

  it('PostgreSQL has the index after migrating', async () => {
    const database = await createFreshPostgres('request_count_index');
    const opened = await openDatabase(database.url);
    try {
      await migrateToLatest(opened.db, opened.dialect);
      const found = await sql<{
        indexdef: string;
      }>`select indexdef from pg_indexes where indexname = 'jobs_team_kind_root_idx'`.execute(opened.db);
      expect(found.rows[0]?.indexdef).toMatch(/\(team_id, kind, root_id\)/);
    } finally {
      await opened.close();
      await database.drop();
    }
  });
});
