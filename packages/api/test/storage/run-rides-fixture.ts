// Shared by run-rides-carry.test.ts and run-rides-lost.test.ts: both drive RunRides on the same databases.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '@agent-teams/core';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/storage/database-types.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import type { RideWrite } from '../../src/storage/run-rides.js';
import { runWrite, type StoreContext } from '../../src/storage/write-transaction.js';
import type { CommitCounter } from '../support/commit-counter.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';

/** The fixed clock the rides read. */
export const CLOCK: Clock = { nowMs: () => Date.parse('2026-12-03T12:00:00.000Z') };
/** The timestamp of every write, the instant of {@link CLOCK}. */
export const NOW = '2026-12-03T12:00:00.000Z';

/** A run row insert, as a scripted run's end writes it; false when the key exists. */
export function insertRun(runKey: string): RideWrite {
  return async (trx, now) => {
    const inserted = await trx
      .insertInto('runtime_runs')
      .values({
        run_key: runKey,
        run_id: `run_${runKey}`,
        runtime: 'scripted',
        conversation_id: 'conv_1',
        job_id: null,
        state: 'completed',
        state_json: '{}',
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  };
}

/** The keys of the stored run rows, in order. */
export async function runKeys(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('runtime_runs').select('run_key').orderBy('run_key').execute();
  return rows.map((row) => row.run_key);
}

/**
 * A "job write" of the scheduler (decided on the run's announced end): a marker row of its own,
 * and the ride of `runId` carried in the same transaction.
 */
export function jobWrite(ctx: StoreContext, marker: string, runId: string, fail?: Error): Promise<boolean> {
  return runWrite(ctx, NOW, async (scope) => {
    await insertRun(marker)(scope.trx, NOW);
    const carried = await scope.carryRide(runId, true);
    if (fail) throw fail;
    return carried;
  });
}

/** The end every offered ride announces. */
export const COMPLETED = { state: 'completed', answer: 'done' } as const;

/** The databases the rides run on. */
export type RidesDialect = 'sqlite' | 'postgres';

/** A migrated database of `dialect` (a temp SQLite file, or a fresh PostgreSQL database), and how to drop it. */
export async function openRidesDatabase(
  dialect: RidesDialect,
): Promise<{ database: OpenedDatabase; cleanup: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'agent-teams-rides-'));
    const database = await openDatabase(join(dir, 'rides.sqlite'));
    await migrateToLatest(database.db, database.dialect);
    const cleanup = async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    };
    return { database, cleanup };
  }
  const fresh: FreshPostgres = await createFreshPostgres('rides');
  const database = await openDatabase(fresh.url);
  const cleanup = async () => {
    await database.close();
    await fresh.drop();
  };
  return { database, cleanup };
}

/**
 * How many transactions wrote these run rows: on SQLite the COMMITs `counter` counted since it was
 * plugged in; on PostgreSQL the distinct `xmin` (the id of the transaction that inserted each row).
 */
export async function transactionsWriting(
  dialect: RidesDialect,
  database: OpenedDatabase,
  counter: CommitCounter,
  keys: readonly string[],
): Promise<number> {
  if (dialect === 'sqlite') return counter.commits;
  const { rows } = await sql<{
    xmin: string;
  }>`select xmin::text as xmin from runtime_runs where run_key in (${sql.join(keys)})`.execute(database.db);
  return new Set(rows.map((row) => row.xmin)).size;
}
