import { EMPTY_ROUND, type RoundState } from '@agent-teams/core';
import { CompiledStatement } from './compiled-statement.js';
import { UNFINISHED } from './job-reads.js';
import { ACTIVE_PHASE_LITERALS } from './literal-phase.js';
import { writeThenCheck } from './pg-held-connection.js';
import { readStoredRound } from './stored-json.js';
import type { WriteScope } from './write-transaction.js';

// The planning lock (the `scheduler_state` row, on PostgreSQL) and what a pass reads right under
// it: the stored round and the active jobs per owner.

/** The stored planning round; compiled once (`compiled-statement.ts`). */
const ROUND = new CompiledStatement(0, (db) =>
  db.selectFrom('scheduler_state').select('round_json').where('id', '=', 1),
);
/** The same, locked (PostgreSQL). */
const ROUND_FOR_UPDATE = new CompiledStatement(0, (db) =>
  db.selectFrom('scheduler_state').select('round_json').where('id', '=', 1).forUpdate(),
);

/** The stored planning round, read under the planning lock (its row locked on PostgreSQL); stored empty when missing. */
export async function readRound(scope: WriteScope): Promise<RoundState> {
  // The single row is the cross-server planning lock on PostgreSQL.
  const [row] = await (scope.dialect === 'postgres' ? ROUND_FOR_UPDATE : ROUND).rows(scope.trx);
  if (row === undefined) {
    await scope.trx
      .insertInto('scheduler_state')
      .values({ id: 1, round_json: JSON.stringify(EMPTY_ROUND), updated_at: scope.now })
      .execute();
    return EMPTY_ROUND;
  }
  return readStoredRound(row.round_json) ?? (await storeEmptyRound(scope));
}

/**
 * Stores the empty round over one that did not read (`stored-json.ts`), under the planning lock
 * this transaction holds: the next passes read it again instead of reporting it.
 */
export async function storeEmptyRound(scope: WriteScope): Promise<RoundState> {
  await scope.trx
    .updateTable('scheduler_state')
    .set({ round_json: JSON.stringify(EMPTY_ROUND), updated_at: scope.now })
    .where('id', '=', 1)
    .execute();
  return EMPTY_ROUND;
}

/** The planning round stored: `[round_json, updated_at]`; compiled once. */
const STORE_ROUND = new CompiledStatement(2, (db, round: string, now: string) =>
  db.updateTable('scheduler_state').set({ round_json: round, updated_at: now }).where('id', '=', 1),
);

/**
 * Stores `round` (JSON) under the planning lock this transaction holds. On PostgreSQL it is sent
 * and left (decision 0258): the freezes' locked reads follow it on the wire instead of waiting for
 * its answer, and nothing needs checking (the row is there: this transaction locked it), so the
 * `COMMIT` follows it too; a failure aborts the transaction, which then fails with it.
 */
export function storeRound(scope: WriteScope, round: string): Promise<void> {
  return writeThenCheck(
    scope.trx,
    () => STORE_ROUND.execute(scope.trx, round, scope.now),
    () => undefined,
    true,
  );
}

/** The active jobs per owner; compiled once (`compiled-statement.ts`). */
const ACTIVE_BY_OWNER = new CompiledStatement(0, (db) =>
  db
    .selectFrom('jobs')
    .select((eb) => ['owner', eb.fn.countAll<number | string>().as('n')])
    .where('unfinished', '=', UNFINISHED)
    .where('phase', 'in', ACTIVE_PHASE_LITERALS)
    .groupBy('owner'),
);

/**
 * The active jobs per owner, asked at once after the planning lock's read: on PostgreSQL they
 * follow it on the wire and run once the lock is held, in the same round trip.
 */
export function readActive(scope: WriteScope): Promise<{ owner: string; n: number | string }[]> {
  const read = ACTIVE_BY_OWNER.rows(scope.trx);
  // Told where it is awaited; never awaited when the lock was not free or its read failed first.
  read.catch(() => undefined);
  return read;
}

/** The planning lock's row, locked unless another transaction holds it (PostgreSQL; decision 0229). */
export const ROUND_IF_FREE = new CompiledStatement(0, (db) =>
  db.selectFrom('scheduler_state').select('round_json').where('id', '=', 1).forUpdate().skipLocked(),
);
