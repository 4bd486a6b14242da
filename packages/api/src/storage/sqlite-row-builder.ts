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

/** Counts the schema changes (DDL) run on one connection: a statement's columns may change with each. */
export interface SchemaGeneration {
  readonly value: number;
}

/**
 * `all` and `iterate` of a reading statement that fetch raw rows and build the objects with a
 * {@link compileRowBuilder} builder; null for a statement that writes without returning rows, or
 * whose columns cannot be built so (it then keeps better-sqlite3's own rows).
 *
 * @remarks SQLite re-prepares a statement whose tables changed, and its columns change with it (a
 * migration adding, dropping or renaming a column under a cached `select *`). The builder is
 * recompiled from the statement's current columns when `schema` moved since it was compiled (DDL
 * on this connection: the statement cache counts it) or when a row's width differs from it (a
 * change made elsewhere; a server holds its SQLite file alone, so only tests do that).
 */
export function rawRows(
  statement: ReaderStatement,
  schema: SchemaGeneration = { value: 0 },
): {
  all(parameters: readonly unknown[]): unknown[];
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
} | null {
  if (!statement.reader) return null;
  const names = statement.columns().map((column) => column.name);
  const first = compileRowBuilder(names);
  if (first === null) return null;
  statement.raw(true);
  let build: RowBuilder = first;
  let width = names.length;
  let compiledAt = schema.value;
  /** The builder for rows of `length` values (see the remarks). */
  const builderFor = (length: number): RowBuilder => {
    if (length !== width || compiledAt !== schema.value) {
      const current = statement.columns().map((column) => column.name);
      build = compileRowBuilder(current) ?? assigningBuilder(current);
      width = current.length;
      compiledAt = schema.value;
    }
    return build;
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

/**
 * Rows as better-sqlite3 builds them on Node 20, one assignment per column, for names a literal
 * cannot hold (`__proto__` after a schema change; no table here has such a column).
 */
function assigningBuilder(names: readonly string[]): RowBuilder {
  return (values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i += 1) row[names[i] as string] = values[i];
    return row;
  };
}
