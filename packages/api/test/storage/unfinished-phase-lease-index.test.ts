// Migration 0016 (decision 0239): one index of unfinished jobs on (phase, lease_server) serves the
// scheduler's phase reads and its lease reads, where two indexes were written by every admission
// and every end of a job.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACTIVE_PHASES, JobPhase } from '@agent-teams/core';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { unfinishedJobCounts } from '../../src/observability/metrics.js';
import type { Database } from '../../src/storage/database-types.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { unfinishedPhaseLeaseIndexMigration } from '../../src/storage/migrations/0016-unfinished-phase-lease-index.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres } from '../support/fresh-postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-phase-lease-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ACTIVE = `(${[...ACTIVE_PHASES]
  .sort()
  .map((phase) => `'${phase}'`)
  .join(', ')})`;
const WAITING = `('${JobPhase.ANSWERED}', '${JobPhase.QUEUED}')`;

/**
 * The shapes of the statements the two old indexes served (`job-leases.ts`, `admission.ts`), with
 * the phases written as literals as they are (`literal-phase.ts`). `$n` is a bound value.
 */
const STATEMENTS = {
  held: `select * from jobs where unfinished = 1 and phase in ${ACTIVE} and lease_server = $1 order by seq`,
  claim: `select j.id from jobs as j where j.unfinished = 1 and j.phase in ${ACTIVE} and (j.lease_server is null or j.lease_server != $1) and not exists (select s.server_id from server_leases as s where s.server_id = j.lease_server and s.expires_at_ms > $2)`,
  release: 'update jobs set lease_server = null where unfinished = 1 and lease_server = $1',
  waiting: `select exists (select id from jobs where unfinished = 1 and phase in ${WAITING} limit 1) as queued`,
  activeByOwner: `select owner, count(*) as n from jobs where unfinished = 1 and phase in ${ACTIVE} group by owner`,
} as const;

async function indexNames(db: Kysely<Database>, dialect: 'sqlite' | 'postgres'): Promise<string[]> {
  const rows =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'index' order by name`.execute(db)
      : await sql<{
          name: string;
        }>`select indexname as name from pg_indexes where schemaname = current_schema() order by indexname`.execute(db);
  return rows.rows.map((row) => row.name);
}

describe('migration 0016: unfinished jobs by phase and lease in one index', () => {
  it('SQLite: replaces the phase and lease indexes, and every statement they served searches or scans the new one', async () => {
    const opened = await openDatabase(join(dir, 'plan.sqlite'));
    try {
      expect(await migrateToLatest(opened.db, opened.dialect)).toContain('0016-unfinished-phase-lease-index');
      const names = await indexNames(opened.db, 'sqlite');
      expect(names).toContain('jobs_unfinished_phase_lease_idx');
      expect(names).not.toContain('jobs_unfinished_phase_idx');
      expect(names).not.toContain('jobs_unfinished_lease_idx');
      const plan = async (text: string, values: readonly unknown[]) => {
        const sqliteText = text.replace(/\$\d+/g, '?');
        const rows = await opened.db.executeQuery(CompiledQuery.raw(`explain query plan ${sqliteText}`, [...values]));
        return rows.rows.map((row) => (row as { detail: string }).detail).join(' | ');
      };
      const uses = /(SEARCH|SCAN) j(obs)? USING (COVERING )?INDEX jobs_unfinished_phase_lease_idx/;
      expect(await plan(STATEMENTS.held, ['srv_a'])).toMatch(
        /SEARCH jobs USING INDEX jobs_unfinished_phase_lease_idx \(phase=\? AND lease_server=\?\)/,
      );
      expect(await plan(STATEMENTS.claim, ['srv_a', 0])).toMatch(uses);
      // No phase: it walks the unfinished jobs only (once, when a server stops).
      expect(await plan(STATEMENTS.release, ['srv_a'])).toMatch(uses);
      expect(await plan(STATEMENTS.waiting, [])).toMatch(uses);
      expect(await plan(STATEMENTS.activeByOwner, [])).toMatch(uses);
      for (const text of Object.values(STATEMENTS)) {
        expect(await plan(text, ['srv_a', 0].slice(0, (text.match(/\$\d/g) ?? []).length))).not.toMatch(
          /SCAN (jobs|j)( |$)(?!USING)/,
        );
      }
      // The metrics' counts still walk unfinished jobs only.
      const counts = await opened.db.executeQuery(
        CompiledQuery.raw(`explain query plan ${unfinishedJobCounts(opened.db).compile().sql}`),
      );
      expect(counts.rows.map((row) => (row as { detail: string }).detail).join(' | ')).toMatch(
        /USING (COVERING )?INDEX jobs_unfinished_/,
      );
      // The migration run again (a crash before its record) changes nothing.
      await unfinishedPhaseLeaseIndexMigration().up(opened.db);
      expect(await indexNames(opened.db, 'sqlite')).toEqual(names);
    } finally {
      await opened.close();
    }
  });

  it('PostgreSQL: the same index, and generic plans of the lease and phase reads use a partial index, never a scan of every job', async () => {
    const database = await createFreshPostgres('unfinished_phase_lease');
    const opened = await openDatabase(database.url);
    try {
      await migrateToLatest(opened.db, opened.dialect);
      const names = await indexNames(opened.db, 'postgres');
      expect(names).toContain('jobs_unfinished_phase_lease_idx');
      expect(names).not.toContain('jobs_unfinished_phase_idx');
      expect(names).not.toContain('jobs_unfinished_lease_idx');
      // Generic plans (parameters unknown), scans off so an empty table shows which index the
      // planner can use at all; one connection, so the settings hold.
      await opened.db.connection().execute(async (connection) => {
        await sql`set enable_seqscan = off`.execute(connection);
        await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
        const explain = async (name: string, text: string, types: string) => {
          await connection.executeQuery(CompiledQuery.raw(`prepare ${name}${types} as ${text}`));
          const args =
            types === ''
              ? ''
              : `(${types
                  .slice(1, -1)
                  .split(', ')
                  .map((type) => (type === 'text' ? "'srv_a'" : '0'))
                  .join(', ')})`;
          const plan = await connection.executeQuery(CompiledQuery.raw(`explain execute ${name}${args}`));
          return plan.rows.map((row) => Object.values(row as object).join(' ')).join(' | ');
        };
        const held = await explain('held', STATEMENTS.held, '(text)');
        // Some partial index of unfinished jobs: on an empty table the planner may take any of them.
        expect(held).toMatch(/jobs_unfinished_\w+_idx/);
        expect(held).not.toMatch(/Seq Scan/);
        const waiting = await explain('waiting', STATEMENTS.waiting, '');
        expect(waiting).toMatch(/jobs_unfinished_\w+_idx/);
        expect(waiting).not.toMatch(/Seq Scan/);
        expect(await explain('release', STATEMENTS.release, '(text)')).not.toMatch(/Seq Scan/);
        expect(await explain('claim', STATEMENTS.claim, '(text, bigint)')).not.toMatch(/Seq Scan on jobs/);
      });
      await unfinishedPhaseLeaseIndexMigration().up(opened.db);
      expect(await indexNames(opened.db, 'postgres')).toEqual(names);
    } finally {
      await opened.close();
      await database.drop();
    }
  });
});
