import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely, QueryResult } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { teamRowValues } from '../../test/support/raw-rows.js';
import { CompiledStatement, planCounts } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { migrateToLatest } from './migrate.js';
import { type OpenedDatabase, openDatabase } from './open-database.js';
import { heldHandle, sqliteHandleOf } from './sqlite-held-connection.js';
import { writeBatchOf } from './sqlite-write-batch.js';
import type { StoreContext, WriteScope } from './write-transaction.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-held-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const open: OpenedDatabase[] = [];
afterEach(async () => {
  for (const database of open.splice(0)) await database.close();
});

async function sqliteFile(name: string): Promise<OpenedDatabase> {
  const database = await openDatabase(join(dir, `${name}.sqlite`));
  open.push(database);
  await migrateToLatest(database.db, 'sqlite');
  return database;
}

const TEAM = new CompiledStatement(1, (db, id: string) => db.selectFrom('teams').selectAll().where('id', '=', id));
const INSERT = new CompiledStatement(2, (db, id: string, name: string) =>
  db.insertInto('teams').values(teamRowValues(id, name, 'now')),
);
const RENAME = new CompiledStatement(2, (db, id: string, name: string) =>
  db.updateTable('teams').set({ name }).where('id', '=', id),
);

/** Runs `work` as one write of the database's batch, as the store's writes run. */
async function write<T>(database: OpenedDatabase, work: (scope: WriteScope) => Promise<T>): Promise<T> {
  const ctx: StoreContext = { db: database.db, dialect: 'sqlite', sink: null, ids: null };
  return (await writeBatchOf(database.db).run(ctx, 'now', work)).result;
}

/** What a result says, without the rows' identity. */
const said = (result: QueryResult<unknown>) => ({
  rows: result.rows,
  numAffectedRows: result.numAffectedRows,
  insertId: result.insertId,
});

describe('compiled statements on a held SQLite connection', () => {
  it('run on the handle while a write holds the connection, and through Kysely otherwise', async () => {
    // Every statement of these tests is planned, so it can run on the handle at all.
    const before = planCounts().refused;
    const database = await sqliteFile('held');
    await write(database, async (scope) => {
      await INSERT.execute(scope.trx, 'planned', 'p');
      await RENAME.execute(scope.trx, 'planned', 'q');
      await TEAM.execute(scope.trx, 'planned');
    });
    expect(planCounts().refused).toBe(before);
    expect(sqliteHandleOf(database.db)).toBeDefined();
    let inside: Kysely<Database> | null = null;
    await write(database, async (scope) => {
      inside = scope.trx;
      expect(heldHandle(scope.trx)).toBe(sqliteHandleOf(database.db));
    });
    // Released with the connection; the root handle never holds it.
    expect(heldHandle(inside as unknown as Kysely<Database>)).toBeUndefined();
    expect(heldHandle(database.db)).toBeUndefined();
  });

  it('answers what Kysely answers: rows, changes and the last rowid, in ASCII, CJK, emoji and lone surrogates', async () => {
    const direct = await sqliteFile('direct');
    const kysely = await sqliteFile('kysely');
    const names = ['plain', '团队名称', '🤖 team', 'lone \ud800 high', 'lone \udc00 low'];
    const seen: unknown[][] = [];
    for (const [database, viaBatch] of [
      [direct, true],
      [kysely, false],
    ] as const) {
      const results: unknown[] = [];
      const run = async (db: Kysely<Database>) => {
        for (const [i, name] of names.entries()) results.push(said(await INSERT.execute(db, `t${i}`, name)));
        results.push(said(await RENAME.execute(db, 't0', 'renamed')));
        results.push(said(await RENAME.execute(db, 'absent', 'x')));
        for (const i of names.keys()) results.push(said(await TEAM.execute(db, `t${i}`)));
      };
      if (viaBatch) await write(database, (scope) => run(scope.trx));
      else await database.db.transaction().execute(run);
      seen.push(results);
    }
    expect(seen[0]).toEqual(seen[1]);
    // The text came back as written (a lone surrogate is replaced when encoded, on both paths alike).
    const rows = seen[0]?.slice(-names.length) as { rows: { name: string }[] }[];
    expect(rows.map((r) => r.rows[0]?.name).slice(0, 3)).toEqual(['renamed', '团队名称', '🤖 team']);
    expect(rows[3]?.rows[0]?.name).toMatch(/^lone \ufffd+ high$/);
    expect(seen[0]?.[0]).toEqual({ rows: [], numAffectedRows: 1n, insertId: 1n });
  });

  it('rejects a failing statement with SQLite’s error and leaves the write to roll back alone', async () => {
    const database = await sqliteFile('failing');
    await write(database, async (scope) => {
      await INSERT.execute(scope.trx, 'dup', 'first');
    });
    const failed = write(database, async (scope) => {
      await INSERT.execute(scope.trx, 'other', 'rolled back');
      // A rejected promise, not a throw from `execute` itself.
      const attempt = INSERT.execute(scope.trx, 'dup', 'second');
      expect(attempt).toBeInstanceOf(Promise);
      await attempt;
    });
    await expect(failed).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    const names = await database.db.selectFrom('teams').select('name').orderBy('name').execute();
    expect(names).toEqual([{ name: 'first' }]);
  });
});
