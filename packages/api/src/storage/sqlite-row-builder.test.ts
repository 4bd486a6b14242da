import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileRowBuilder, rawRows } from './sqlite-row-builder.js';
import { withStatementCache } from './sqlite-statement-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-row-builder-'));
let db: BetterSqlite3.Database;
beforeAll(() => {
  db = new BetterSqlite3(join(dir, 'rows.sqlite'));
  db.exec(`create table wide (id text primary key, n integer, r real, t text, b blob, z text, "weird ""name""" text)`);
  const insert = db.prepare('insert into wide values (?, ?, ?, ?, ?, ?, ?)');
  insert.run('a', 1, 1.5, 'text', Buffer.from([1, 2]), null, 'q');
  insert.run('b', -7, 0, '請求 🙂', null, 'z', 'r');
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The rows better-sqlite3 itself builds, from a statement of its own. */
const native = (sql: string, parameters: unknown[] = []) => db.prepare(sql).all(parameters);

/** The rows {@link rawRows} builds, keys in the same order. */
function built(sql: string, parameters: unknown[] = []): unknown[] {
  const rows = rawRows(db.prepare(sql));
  if (rows === null) throw new Error(`no raw rows for ${sql}`);
  return rows.all(parameters);
}

/** Deep-equal and the same keys in the same order (a row's shape is its key order). */
function expectSameRows(actual: unknown[], expected: unknown[]): void {
  expect(actual).toEqual(expected);
  expect(actual.map((row) => Object.keys(row as object))).toEqual(expected.map((row) => Object.keys(row as object)));
}

describe('rows built in JavaScript', () => {
  it.each([
    ['every column of a table', 'select * from wide order by id', []],
    ['a bound filter that finds nothing', 'select * from wide where id = ?', ['none']],
    ['aliases and expressions', `select count(*), id as "a.b", n + 1 as "x""y", t as "\\" from wide group by id`, []],
    ['duplicate names: the last wins', 'select 1 as a, 2 as a, id as a from wide', []],
    ['names in CJK, emoji and a lone surrogate', `select 1 as "請求", 2 as "🙂", 3 as "\ud800" from wide`, []],
    ['a name that looks like code', `select 1 as "}; process.exit(1); ({", 2 as "constructor" from wide`, []],
  ] as const)('matches better-sqlite3 for %s', (_what, sql, parameters) => {
    expectSameRows(built(sql, [...parameters]), native(sql, [...parameters]));
  });

  it('matches for RETURNING, a write that returns rows', () => {
    const statement = db.prepare(`insert into wide (id, n) values (?, ?) returning id, n, t`);
    const rows = rawRows(statement);
    expect(rows?.all(['c', 3])).toEqual([{ id: 'c', n: 3, t: null }]);
    expect(native('select id, n, t from wide where id = ?', ['c'])).toEqual([{ id: 'c', n: 3, t: null }]);
  });

  it('matches when iterated', () => {
    const rows = rawRows(db.prepare('select id, t from wide where id in (?, ?) order by id'));
    expect([...(rows?.iterate(['a', 'b']) ?? [])]).toEqual(
      native('select id, t from wide where id in (?, ?) order by id', ['a', 'b']),
    );
  });

  it('keeps better-sqlite3 rows for a __proto__ column, and leaves statements that return no rows alone', () => {
    expect(compileRowBuilder(['a', '__proto__'])).toBeNull();
    expect(rawRows(db.prepare('select 1 as "__proto__"'))).toBeNull();
    expect(rawRows(db.prepare('update wide set n = n where id = ?'))).toBeNull();
    // Through the statement cache: such a statement keeps better-sqlite3's own rows, exactly.
    const sql = 'select 1 as "__proto__", 2 as b';
    const cached = withStatementCache(db).prepare(sql);
    const rows = cached.all([]);
    expectSameRows(rows, native(sql));
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
  });

  it('follows a table that gained a column under a cached select *, in all and in iterate', () => {
    const cache = withStatementCache(db);
    cache.prepare('create table grows (id text)').run([]);
    db.prepare('insert into grows values (?)').run('g');
    const cached = cache.prepare('select * from grows');
    expect(cached.all([])).toEqual([{ id: 'g' }]);
    // Outside the cache (another connection would look the same): noticed by the rows' width.
    db.exec(`alter table grows add column extra text default 'e'`);
    expect([...cached.iterate([])]).toEqual([{ id: 'g', extra: 'e' }]);
    expectSameRows(cached.all([]), native('select * from grows'));
  });

  it('follows a table rebuilt with the same number of columns in another order, after DDL through the cache', () => {
    const cache = withStatementCache(db, () => {});
    cache.prepare('create table people (id text, name text, secret text)').run([]);
    cache.prepare('insert into people values (?, ?, ?)').run(['1', 'alice', 's3cret']);
    const cached = cache.prepare('select * from people');
    expect(cached.all([])).toEqual([{ id: '1', name: 'alice', secret: 's3cret' }]);
    // SQLite's way to change a table: a new one, the rows copied, the old one dropped, a rename.
    for (const ddl of [
      'create table people_new (id text, secret text, nick text)',
      'insert into people_new select id, secret, name from people',
      'drop table people',
      'alter table people_new rename to people',
    ]) {
      cache.prepare(ddl).run([]);
    }
    expectSameRows(cached.all([]), native('select * from people'));
    expect(cached.all([])).toEqual([{ id: '1', secret: 's3cret', nick: 'alice' }]);
  });

  it('quotes any name as a key: lone surrogates, line separators, quotes, integer-like names', () => {
    const names = ['\ud800', '\udc00x', '\u2028', '\u2029', '"', '\\', '$' + '{x}', '10', '1', '0', '', 'a'];
    const build = compileRowBuilder(names);
    const values = names.map((_, i) => i);
    const expected: Record<string, unknown> = {};
    for (const [i, name] of names.entries()) expected[name] = values[i];
    const row = build?.(values) ?? {};
    expect(row).toEqual(expected);
    expect(Object.keys(row)).toEqual(Object.keys(expected));
  });

  it('keeps BLOBs, NULLs and safe integers as better-sqlite3 gives them', () => {
    const sql = 'select id, n, b, z from wide order by id';
    const statement = db.prepare(sql).safeIntegers(true);
    const built = rawRows(statement)?.all([]) ?? [];
    expectSameRows(built, db.prepare(sql).safeIntegers(true).all());
    expect(typeof (built[0] as { n: unknown }).n).toBe('bigint');
  });

  it('builds the same rows as better-sqlite3 for any column names (fuzz)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { minLength: 1, maxLength: 6 }), (names) => {
        fc.pre(!names.includes('__proto__'));
        const sql = `select ${names.map((name, i) => `${i} as "${name.replaceAll('"', '""')}"`).join(', ')}`;
        let expected: unknown[];
        try {
          expected = native(sql);
        } catch {
          return; // a name SQLite refuses (a NUL) is refused alike either way
        }
        expectSameRows(built(sql), expected);
      }),
      { numRuns: 300 },
    );
  });
});
