import type pg from 'pg';

/**
 * Distinct statement texts a process prepares, at most. The store issues a few dozen shapes
 * (lists of ids and multi-row inserts add a few more per length); past the cap, texts run
 * unprepared, so an unusual workload cannot fill every connection with plans.
 */
export const MAX_PREPARED_STATEMENTS = 256;

/** PostgreSQL's complaint about a prepared `SELECT *` whose table gained or lost a column. */
const STALE_RESULT_TYPE = /cached plan must not change result type/i;

/** The statement names of one process: one per distinct text, shared by every connection. */
export class PreparedNames {
  readonly #names = new Map<string, string>();
  readonly #max: number;

  constructor(max = MAX_PREPARED_STATEMENTS) {
    this.#max = max;
  }

  /** The name of `text`, or null once the cap is reached for a new text. */
  nameOf(text: string): string | null {
    let name = this.#names.get(text);
    if (name === undefined) {
      if (this.#names.size >= this.#max) return null;
      name = `at_${this.#names.size}`;
      this.#names.set(text, name);
    }
    return name;
  }
}

type QueryFn = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * One data statement and nothing else: a text without parameters is named only when it is one,
 * since a text may hold several statements (migrations), which a prepared statement cannot.
 * Statements whose every value is a literal (the phases, decision 0235) are such texts.
 */
const ONE_DATA_STATEMENT = /^\s*(select|with|insert|update|delete)\b[^;]*$/i;

/**
 * Makes a pool client run each parameterized statement as a named prepared statement, so
 * PostgreSQL parses and plans each text once per connection instead of on every call.
 *
 * @remarks Why: planning was most of a statement's cost here (the admission candidates plan in
 * about 1 ms, run in 0.1 ms), and a dispatch runs ten statements in sequence (docs/benchmarks.md,
 * cluster-dispatch: two servers, p50 8.4 → 5.4 ms against unnamed statements in the same run). Kysely's driver calls `query(text, values)`, which `pg`
 * sends unnamed; this wrapper adds the name (`pg` then skips the parse on later calls).
 * A migration by another server can change a table under a prepared `SELECT *`; PostgreSQL then
 * refuses the statement ("cached plan must not change result type"). Every text then gets a new
 * name on this connection, and the call is tried again at once outside a transaction; inside
 * one, the error goes up and the store's transaction retry runs it anew (`driver-errors.ts`).
 * Poolers in transaction mode that cannot keep prepared statements: turn it off
 * (`--pg-prepared-statements off`).
 */
export function preparedStatements(client: pg.PoolClient, names: PreparedNames): void {
  const query = client.query.bind(client) as QueryFn;
  /**
   * Bumped when a statement went stale here: every name of this connection changes at once, so a
   * migration costs a connection one failed call (or transaction attempt), not one per table.
   */
  let generation = 0;
  let inTransaction = false;
  const track = (text: string): void => {
    if (/^\s*(begin|start transaction)\b/i.test(text)) inTransaction = true;
    else if (/^\s*(commit|end|rollback)\b/i.test(text) && !/\bto\b/i.test(text)) inTransaction = false;
  };
  const named = (text: string): string | null => {
    const name = names.nameOf(text);
    if (name === null) return null;
    return generation === 0 ? name : `${name}_${generation}`;
  };
  const wrapped: QueryFn = (config, values, callback) => {
    if (typeof config === 'string') track(config);
    // What `pg` would send through the extended protocol anyway (parameters given), and one data
    // statement without parameters (`ONE_DATA_STATEMENT`).
    if (
      typeof config !== 'string' ||
      !Array.isArray(values) ||
      typeof callback === 'function' ||
      (values.length === 0 && !ONE_DATA_STATEMENT.test(config))
    ) {
      return query(config, values, callback);
    }
    const name = named(config);
    if (name === null) return query(config, values);
    const wasInTransaction = inTransaction;
    const used = generation;
    return (query({ name, text: config, values }) as Promise<unknown>).catch((error: unknown) => {
      if (!STALE_RESULT_TYPE.test(String((error as Error)?.message))) throw error;
      // Once per generation: calls that were already under way when it went stale do not bump again.
      if (generation === used) generation += 1;
      if (wasInTransaction) throw error;
      return query({ name: named(config), text: config, values });
    });
  };
  (client as unknown as { query: QueryFn }).query = wrapped;
}
