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
import { type DatabaseDialect, openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres } from '../support/fresh-postgres.js';
import { indexNames, sqlitePlan } from '../support/index-plans.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-phase-lease-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ACTIVE = `(${[...ACTIVE_PHASES]
  .sort()
  .map((phase) => `'${phase}'`)
  .join(', ')})`;
const WAITING = `('${JobPhase.ANSWERED}', '${JobPhase.QUEUED}')`;

/**
 * The shapes of the statements the two old indexes served, copied from `job-leases.ts` (held,
 * claim, release) and `admission.ts` (the idle check, the active counts) with the phases written
 * as literals as they are (`literal-phase.ts`); keep them in step. `$n` is a bound value.
 */
const STATEMENTS = {
  held: `select * from jobs where unfinished = 1 and phase in ${ACTIVE} and lease_server = $1 order by seq`,
  claim: `select j.id from jobs as j where j.unfinished = 1 and j.phase in ${ACTIVE} and (j.lease_server is null or j.lease_server != $1) and not exists (select s.server_id from server_leases as s where s.server_id = j.lease_server and s.expires_at_ms > $2)`,
  release: 'update jobs set lease_server = null where unfinished = 1 and lease_server = $1',
  waiting: `select exists (select id from jobs where unfinished = 1 and phase in ${WAITING} limit 1) as queued`,
  activeByOwner: `select owner, count(*) as n from jobs where unfinished = 1 and phase in ${ACTIVE} group by owner`,
} as const;

/**
 * The migration run again after it finished (a crash before its record) and after a crash between
 * its steps (the new index made, an old one not dropped yet) leaves the same indexes.
 */
async function expectRerunsEndTheSame(
  db: Kysely<Database>,
  dialect: DatabaseDialect,
  names: readonly string[],
): Promise<void> {
  await unfinishedPhaseLeaseIndexMigration().up(db);
  expect(await indexNames(db, dialect)).toEqual(names);
  await sql`create index jobs_unfinished_lease_idx on jobs (lease_server) where unfinished = 1`.execute(db);
  await unfinishedPhaseLeaseIndexMigration().up(db);
  expect(await indexNames(db, dialect)).toEqual(names);
}

/**
 * PostgreSQL: 3,000 finished jobs and 60 unfinished ones in every phase, half of the active ones
 * leased to `srv_a`, analyzed, so the planner chooses by cost among real indexes.
 */
async function seedPostgres(db: Kysely<Database>): Promise<void> {
  const now = '2026-12-05T07:00:00.000Z';
  await sql`insert into teams (id, owner, client_request_id, fingerprint, name, goal, status, revision, last_event_seq, created_at, updated_at)
    values ('team_a', 'owner_a', 'create-a', 'f', 'T', 'g', 'READY', 1, 0, ${now}, ${now})`.execute(db);
  const unfinished = Object.values(JobPhase).filter((phase) => !['COMPLETED', 'FAILED', 'CANCELLED'].includes(phase));
  await sql`insert into jobs (id, team_id, owner, kind, phase, unfinished, conversation_id, requester_key, root_id,
      client_key, text, created_at, updated_at, lease_server)
    select 'job_' || n, 'team_a', 'owner_a', 'REQUEST',
      case when n <= 3000 then 'COMPLETED' else (${sql.val(unfinished)}::text[])[1 + n % ${unfinished.length}] end,
      case when n <= 3000 then 0 else 1 end, 'conversation_' || n, '', 'job_' || n, 'job_' || n, 'Do it', ${now}, ${now},
      case when n > 3000 and n % 2 = 0 then 'srv_a' else null end
    from generate_series(1, 3060) as n`.execute(db);
  await sql`analyze jobs`.execute(db);
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
      const plan = (text: string, values: readonly unknown[]) =>
        sqlitePlan(opened.db, CompiledQuery.raw(text.replace(/\$\d+/g, '?'), [...values]));
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
      // A retirement's read of its member's unfinished jobs (`team-lifecycle.ts`) names the team:
      // it walks the team's jobs, not every job.
      const retiring = await plan(
        'select * from jobs where team_id = $1 and member_id = $2 and unfinished = 1 order by seq',
        ['team_1', 'member_1'],
      );
      expect(retiring).toMatch(/SEARCH jobs USING INDEX jobs_team_seq_idx \(team_id=\?\)/);
      // The metrics' counts still walk unfinished jobs only.
      expect(await sqlitePlan(opened.db, unfinishedJobCounts(opened.db).compile())).toMatch(
        /USING (COVERING )?INDEX jobs_unfinished_/,
      );
      await expectRerunsEndTheSame(opened.db, 'sqlite', names);
    } finally {
      await opened.close();
    }
  });

  it('PostgreSQL: the same index, which the generic plans of the lease and phase reads take over analyzed rows, never a scan of every job', async () => {
    const database = await createFreshPostgres('unfinished_phase_lease');
    const opened = await openDatabase(database.url);
    try {
      await migrateToLatest(opened.db, opened.dialect);
      const names = await indexNames(opened.db, 'postgres');
      expect(names).toContain('jobs_unfinished_phase_lease_idx');
      expect(names).not.toContain('jobs_unfinished_phase_idx');
      expect(names).not.toContain('jobs_unfinished_lease_idx');
      const [definition] = (
        await sql<{ def: string }>`select indexdef as def from pg_indexes
          where schemaname = current_schema() and indexname = 'jobs_unfinished_phase_lease_idx'`.execute(opened.db)
      ).rows;
      expect(definition?.def).toMatch(/\(phase, lease_server\) WHERE \(unfinished = 1\)/);
      await seedPostgres(opened.db);
      // Generic plans (parameters unknown) over analyzed rows; one connection, so the settings hold.
      await opened.db.connection().execute(async (connection) => {
        await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
        /** The plan of `text` prepared as `name(types)` and executed with `args`. */
        const explain = async (name: string, text: string, types = '', args = '') => {
          await connection.executeQuery(CompiledQuery.raw(`prepare ${name}${types} as ${text}`));
          const plan = await connection.executeQuery(CompiledQuery.raw(`explain execute ${name}${args}`));
          return plan.rows.map((row) => Object.values(row as object).join(' ')).join(' | ');
        };
        const held = await explain('held', STATEMENTS.held, '(text)', "('srv_a')");
        expect(held).toMatch(/jobs_unfinished_phase_lease_idx/);
        expect(held).not.toMatch(/Seq Scan/);
        const waiting = await explain('waiting', STATEMENTS.waiting);
        // Since migration 0022 the index of exactly the waiting jobs serves it better (decision 0260).
        expect(waiting).toMatch(/jobs_unfinished_phase_lease_idx|jobs_waiting_owner_seq_idx/);
        expect(waiting).not.toMatch(/Seq Scan/);
        const active = await explain('active', STATEMENTS.activeByOwner);
        expect(active).toMatch(/jobs_unfinished_phase_lease_idx/);
        expect(await explain('release', STATEMENTS.release, '(text)', "('srv_a')")).not.toMatch(/Seq Scan/);
        const claim = `${STATEMENTS.claim} for update skip locked`;
        expect(await explain('claim', claim, '(text, bigint)', "('srv_a', 0)")).not.toMatch(/Seq Scan on jobs/);
      });
      await expectRerunsEndTheSame(opened.db, 'postgres', names);
    } finally {
      await opened.close();
      await database.drop();
    }
  });
});
