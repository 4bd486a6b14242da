import type BetterSqlite3 from 'better-sqlite3';

/** Builds one row object from the values of a raw row, in the statement's column order. */
export type RowBuilder = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * A function that builds a statement's row objects in JavaScript, as one object literal with the
 * statement's column names as keys (the last of duplicate names wins, as in better-sqlite3's own
 * rows). Null when a name would not be an own data property of such a literal (`__proto__`).
 *
 * @remarks Why: better-sqlite3 builds each row in C++, internalizing every column name of every
 * row (a string-table lookup and hash per column) and adding the properties one by one. A
 * `select *` of `jobs` is 40 columns; in a profile of the `sendRequest` load that was 3.4 % of the
 * server's CPU (docs/benchmarks.md, twenty-third pass). A literal compiled once per statement
 * gives every row one hidden class at once. The names come from SQLite's own column metadata of
 * the server's statements and are written as JSON string literals, never as code.
 */
export function compileRowBuilder(names: readonly string[]): RowBuilder | null {
  if (names.includes('__proto__')) return null;
  const fields = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  // Not eval of anything a client sent: a literal of JSON-quoted keys, compiled once per statement.
  return new Function('v', `'use strict'; return { ${fields} };`) as RowBuilder;
}

/** The subset of a better-sqlite3 statement {@link rawRows} uses. */
type ReaderStatement = Pick<BetterSqlite3.Statement, 'all' | 'iterate' | 'raw' | 'columns' | 'reader'>;

/**
 * `all` and `iterate` of a reading statement that fetch raw rows and build the objects with a
 * {@link compileRowBuilder} builder; null for a statement that writes without returning rows, or
 * whose columns cannot be built so (it then keeps better-sqlite3's own rows).
 *
 * @remarks A statement whose tables gained or lost columns since (SQLite re-prepares it) is
 * noticed by its rows' width and gets a new builder. A column renamed in place keeps the width
 * and would keep its old key: the migrations never rename or drop a column (and run before the
 * server's statements do).
 */
export function rawRows(statement: ReaderStatement): {
  all(parameters: readonly unknown[]): unknown[];
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
} | null {
  if (!statement.reader) return null;
  let build = compileRowBuilder(statement.columns().map((column) => column.name));
  if (build === null) return null;
  statement.raw(true);
  let width = statement.columns().length;
  /**
   * The builder for rows of `length` values: SQLite re-prepares a statement whose tables changed
   * (a migration adding a column under a cached `select *`), and its columns change with it.
   */
  const builderFor = (length: number): RowBuilder => {
    if (length !== width) {
      const names = statement.columns().map((column) => column.name);
      // A `__proto__` column after a schema change (none in this schema): an own property.
      build = compileRowBuilder(names) ?? ((values) => Object.fromEntries(names.map((name, i) => [name, values[i]])));
      width = names.length;
    }
    return build as RowBuilder;
  };
  return {
    all(parameters) {
      const rows = statement.all(parameters) as unknown[][];
      if (rows.length === 0) return rows;
      const row = builderFor((rows[0] as unknown[]).length);
      const built: unknown[] = new Array(rows.length);
      for (let i = 0; i < rows.length; i += 1) built[i] = row(rows[i] as unknown[]);
      return built;
    },
    *iterate(parameters) {
      for (const values of statement.iterate(parameters) as IterableIterator<unknown[]>) {
        yield builderFor(values.length)(values);
      }
    },
  };
}
