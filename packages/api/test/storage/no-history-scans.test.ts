// The statements the store's contract cases run, recorded as each engine's dialect compiled them
// and checked for two things below. The cases run once per engine (every role, on SQLite and on a
// fresh PostgreSQL database), recorded for both checks at once: a file per check ran most cases
// twice on each engine, and those two files were the slowest of the suite.
//
// No store statement reads a whole table that grows with the history (decision 0247): every read,
// update and delete the store's contract cases run on SQLite is planned again here, on a migrated
// database without statistics (where SQLite takes every table to be large), and on PostgreSQL with
// sequential scans made a last resort; and none may scan
// `jobs`, the event log, the records, the conversations, usage, the mailbox, tasks, runs or member
// run tokens without an index. A member's status once did, once per read: 80 ms on a database of
// 80,000 jobs; a team's deletion scanned every team's deliveries and tokens.
//
// Decision 0231: SQLite re-plans a statement at every run when it binds a top-level `LIMIT ?` or a
// `kind = ?` on `jobs` (a partial index tests `kind = 'RECEIPT'`). The statements of the roles that
// run those (`LITERAL_ROLES`) are recorded apart as well; the contract checks the answers, the
// checks of `literal-statement-checks.ts` the texts, and on SQLite that each statement keeps the
// plan of its bound form. better-sqlite3 does not expose `SQLITE_STMTSTATUS_REPREPARE`, so no test
// here counts re-plans.
//
// Every check reads what the contract cases recorded: run the file whole (a `-t` filter that skips
// the cases fails them).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreRole } from '@agent-teams/core';
import { describeStoreRoleContract, STORE_ROLE_CASES } from '@agent-teams/testkit';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database-types.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { GROWING_TABLES, HISTORY_SCAN, sqlitePlan } from '../support/index-plans.js';
import { describeLiteralStatementChecks, LITERAL_ROLES } from '../support/literal-statement-checks.js';
import { recordedPostgresStores, recordedSqliteStores } from '../support/recorded-stores.js';
import { StatementRecorder } from '../support/statement-recorder.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-recorded-statements-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every statement the cases of every role ran, compiled (`StatementRecorder`). */
const recorder = new StatementRecorder();

/** The same cases on PostgreSQL, whose statements differ (`postgresCandidates`, `FOR UPDATE`, …). */
const postgresRecorder = new StatementRecorder();

/** The statements of `LITERAL_ROLES`' cases alone, on each engine: the ones their texts are checked in. */
const literalRecorders = { sqlite: new StatementRecorder(), postgres: new StatementRecorder() };

let pg: FreshPostgres;
beforeAll(async () => {
  pg = await createFreshPostgres('recorded_statements');
});
afterAll(() => pg.drop());

/** Each distinct read, update and delete the cases ran, with the parameters of its first run. */
function recorded(from = recorder): Map<string, readonly unknown[]> {
  const found = new Map<string, readonly unknown[]>();
  for (const { sql, parameters } of from.texts) {
    if (/^(select|update|delete|with) /.test(sql) && !found.has(sql)) found.set(sql, parameters);
  }
  return found;
}

// Two openers per engine, one recording into the literal recorders too: each case gets a file (or
// emptied tables) of its own, and each SQLite opener a directory, as both number their files from 1.
const [plannedDir, literalDir] = [join(dir, 'planned'), join(dir, 'literal')];
mkdirSync(plannedDir);
mkdirSync(literalDir);
const openers = {
  planned: {
    sqlite: recordedSqliteStores(plannedDir, recorder),
    postgres: recordedPostgresStores(() => pg.url, postgresRecorder),
  },
  literal: {
    sqlite: recordedSqliteStores(literalDir, recorder, literalRecorders.sqlite),
    postgres: recordedPostgresStores(() => pg.url, postgresRecorder, literalRecorders.postgres),
  },
};
for (const role of Object.keys(STORE_ROLE_CASES) as StoreRole[]) {
  const literal = LITERAL_ROLES.includes(role);
  const { sqlite, postgres } = literal ? openers.literal : openers.planned;
  const label = literal ? 'planned, statements recorded' : 'planned';
  describeStoreRoleContract(role, `SQLite, ${label}`, sqlite);
  describeStoreRoleContract(role, `PostgreSQL, ${label}`, postgres);
}

/** A PostgreSQL plan line that reads a growing table whole. */
const POSTGRES_HISTORY_SCAN = new RegExp(`Seq Scan on (${GROWING_TABLES})\\b`);

/** SQLite's plan of `text` run with `parameters`, its steps joined (`sqlitePlan`). */
const planOf = (db: Kysely<Database>, text: string, parameters: readonly unknown[]) =>
  sqlitePlan(db, CompiledQuery.raw(text, [...parameters]));

// After every case above (a file runs its tests in order).
describe('the statements the store ran', () => {
  it('scan no table that grows with the history', async () => {
    const opened = await openDatabase(join(dir, 'plans.sqlite'));
    try {
      await migrateToLatest(opened.db, opened.dialect);
      // The check can fail: the window a member's status read before decision 0247 is caught, as
      // planned then (`NOT INDEXED`: the index 0018 added would narrow it now).
      const before = `select conversation_id, phase from (select conversation_id, phase, row_number() over
        (partition by conversation_id order by updated_at desc, seq desc) as rank from jobs not indexed
        where unfinished = 0 and conversation_id in (?, ?)) as ranked where rank = 1`;
      expect(await planOf(opened.db, before, ['c1', 'c2'])).toMatch(HISTORY_SCAN);
      // The cases ran the store's reads and writes, the last finished job's among them.
      const statements = recorded();
      expect(statements.size).toBeGreaterThan(150);
      expect([...statements.keys()].some((text) => text.includes('order by "updated_at" desc, "seq" desc'))).toBe(true);
      const scans: string[] = [];
      for (const [text, parameters] of statements) {
        const plan = await planOf(opened.db, text, parameters);
        if (HISTORY_SCAN.test(plan)) scans.push(`${plan}\n  ${text}`);
      }
      expect(scans).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it('on PostgreSQL too, with sequential scans made a last resort', async () => {
    const opened = await openDatabase(pg.url, { poolSize: 1 });
    try {
      await opened.db.connection().execute(async (connection) => {
        // Off, the planner still scans where no index can serve: that is what is caught.
        await sql`set enable_seqscan = off`.execute(connection);
        const planOn = async (text: string, parameters: readonly unknown[]) =>
          (await connection.executeQuery(CompiledQuery.raw(`explain ${text}`, [...parameters]))).rows
            .map((row) => Object.values(row as object).join(' '))
            .join(' | ');
        expect(await planOn('select count(*) from "jobs" where "text" = $1', ['x'])).toMatch(POSTGRES_HISTORY_SCAN);
        const statements = recorded(postgresRecorder);
        expect(statements.size).toBeGreaterThan(150);
        const scans: string[] = [];
        for (const [text, parameters] of statements) {
          const plan = await planOn(text, parameters);
          if (POSTGRES_HISTORY_SCAN.test(plan)) scans.push(`${plan}\n  ${text}`);
        }
        expect(scans).toEqual([]);
      });
    } finally {
      await opened.close();
    }
  });
});

// After every case above too: the texts of `LITERAL_ROLES`' statements, and their SQLite plans.
describeLiteralStatementChecks(literalRecorders, join(dir, 'literal-plans.sqlite'));
