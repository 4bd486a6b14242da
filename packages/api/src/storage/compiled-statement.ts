import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type { Database } from './database-types.js';
import { pgHeld } from './pg-held-connection.js';
import { heldHandle, runHeld } from './sqlite-held-connection.js';

/** Id lists up to this length get a compiled statement each (a commit's views load a few ids). */
export const ID_LIST_PLANNED = 16;

/**
 * Starts the stand-in value of a parameter while a statement is compiled for its plan. Mixed
 * case and padded, so a build function that changes a value (case, trimming, encoding) leaves a
 * changed stand-in, which refuses the plan instead of being frozen as a constant.
 */
const MARK = '\u0000 Agent-Teams parameter ';
/** Any string that carries it is a stand-in or a changed one. */
const STAND_IN = '\u0000';

/** Where each value of a compiled statement comes from: a parameter's index, or a constant. */
type Slot = number | { readonly constant: unknown };

/** A statement compiled once for one dialect: its SQL and where each of its values comes from. */
interface Plan {
  readonly sql: string;
  readonly slots: readonly Slot[];
}

/** Plans made and refused in this process (tests check that the store's statements plan). */
const counts = { planned: 0, refused: 0 };

/** How many statement plans this process made and refused so far. */
export function planCounts(): Readonly<typeof counts> {
  return { ...counts };
}

/** Per database (its dialect adapter), the plan (null: the statement cannot be planned, built each time). */
type Plans = WeakMap<object, Plan | null>;

/**
 * A statement whose SQL is built and compiled once per dialect, then run with new values.
 *
 * @remarks Kysely builds and compiles every statement anew: an immutable tree, frozen node by
 * node, then walked by the compiler. For the store's hot fixed-shape statements that cost more
 * than running them (profile of a turn: Kysely 17 % of the server's busy time against SQLite's
 * 24 %; docs/benchmarks.md, ninth pass). `build` is called once with stand-in values (a marked
 * string per parameter) and compiled; each later run puts the caller's values where the
 * stand-ins ended up. The plan is refused, and the statement built each time as before, when a
 * stand-in did not reach the parameters as itself (inlined into the SQL, or dropped), so only a
 * statement whose shape does not depend on its values is ever reused. A run with an `undefined`
 * value is built normally too (Kysely leaves such a column out of an insert: another shape).
 * Build functions must not branch on their values; shapes that differ get a statement each. On a
 * handle with Kysely plugins (the statement counters of tests and benchmarks) every run is built
 * as before, so each plugin still sees each statement.
 */
export class CompiledStatement<P extends readonly unknown[], R> {
  readonly #arity: number;
  readonly #build: (db: Kysely<Database>, ...params: P) => Compilable<R>;
  readonly #plans: Plans = new WeakMap();

  /**
   * @param arity how many parameters `build` takes after `db`.
   * @param build builds the statement from its values, the same shape whatever they are.
   */
  constructor(arity: number, build: (db: Kysely<Database>, ...params: P) => Compilable<R>) {
    this.#arity = arity;
    this.#build = build;
  }

  /** Runs the statement on `db` (a connection or a transaction) with `params`. */
  execute(db: Kysely<Database>, ...params: P): Promise<QueryResult<R>> {
    const executor = db.getExecutor();
    // A plugin (the tests' and benchmarks' statement counters) sees every statement built, as before.
    if (executor.plugins.length > 0) return db.executeQuery(this.#build(db, ...params));
    const adapter = executor.adapter;
    let plan = this.#plans.get(adapter);
    if (plan === undefined) {
      plan = planOf(this.#arity, (...marks) => this.#build(db, ...(marks as unknown as P)).compile());
      this.#plans.set(adapter, plan);
      counts[plan === null ? 'refused' : 'planned'] += 1;
    }
    if (plan === null || params.length !== this.#arity || params.includes(undefined)) {
      return executeCompilable(db, this.#build(db, ...params));
    }
    const values = plan.slots.map((slot) => (typeof slot === 'number' ? params[slot] : slot.constant));
    // Holding the SQLite connection (a write's transaction): straight to it, without Kysely's
    // chain of async calls (`sqlite-held-connection.ts`).
    const handle = heldHandle(db);
    if (handle !== undefined) {
      try {
        return Promise.resolve(runHeld<R>(handle, plan.sql, values));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    // Holding a PostgreSQL transaction's client: sent now, in the order called (`pg-held-connection.ts`).
    const client = pgHeld(db);
    if (client !== undefined) return client.run<R>(plan.sql, values);
    return db.executeQuery<R>(CompiledQuery.raw(plan.sql, values) as CompiledQuery<R>);
  }

  /** The rows of {@link execute}. */
  async rows(db: Kysely<Database>, ...params: P): Promise<R[]> {
    return (await this.execute(db, ...params)).rows;
  }
}

/**
 * Runs a statement built for this call: compiled here and sent at once on a held PostgreSQL
 * connection (so it keeps its place among the statements sent straight to it), through Kysely
 * anywhere else.
 */
function executeCompilable<R>(db: Kysely<Database>, query: Compilable<R>): Promise<QueryResult<R>> {
  const client = pgHeld(db);
  if (client === undefined) return db.executeQuery(query);
  const compiled = query.compile();
  return client.run<R>(compiled.sql, compiled.parameters);
}

/**
 * Compiles with a marked stand-in per parameter and maps the compiled values back to them; null
 * when a stand-in was inlined, dropped or changed, or a value is an object (it could hold one).
 */
function planOf(arity: number, compile: (...marks: string[]) => CompiledQuery): Plan | null {
  const marks = Array.from({ length: arity }, (_, index) => `${MARK}${index}`);
  const compiled = compile(...marks);
  if (compiled.sql.includes(STAND_IN)) return null;
  const seen = new Set<number>();
  const slots: Slot[] = [];
  for (const value of compiled.parameters) {
    if (typeof value === 'string' && value.includes(STAND_IN)) {
      const index = marks.indexOf(value);
      if (index === -1) return null;
      seen.add(index);
      slots.push(index);
    } else if (typeof value === 'object' && value !== null) {
      // A value Kysely passes as an object (JSON, a buffer) may hold a stand-in inside it.
      return null;
    } else {
      slots.push({ constant: value });
    }
  }
  return seen.size === arity ? { sql: compiled.sql, slots } : null;
}

/**
 * One {@link CompiledStatement} per list length, for statements over a list of values (`in`):
 * lengths up to `maxLength` are planned, longer lists are built each time.
 */
export class CompiledListStatement<R, V = string> {
  readonly #byLength: CompiledShapes<R>;
  readonly #maxLength: number;
  readonly #build: (db: Kysely<Database>, values: readonly unknown[]) => Compilable<R>;

  constructor(maxLength: number, build: (db: Kysely<Database>, values: readonly V[]) => Compilable<R>) {
    this.#maxLength = maxLength;
    this.#build = build as (db: Kysely<Database>, values: readonly unknown[]) => Compilable<R>;
    // One shape per length: at most `maxLength` of them.
    this.#byLength = new CompiledShapes<R>(maxLength);
  }

  /** The rows of the statement over `values` (at least one). */
  async rows(db: Kysely<Database>, values: readonly V[]): Promise<R[]> {
    if (values.length > this.#maxLength) return (await executeCompilable(db, this.#build(db, values))).rows;
    return (await this.#byLength.execute(db, String(values.length), this.#build, values)).rows;
  }
}

/**
 * {@link CompiledStatement}s whose shape depends on more than their values (which columns a row
 * or an update names): one per shape key, planned on first use, at most `maxShapes` of them (past
 * that, statements are built each time, so shapes made another way can never grow it without
 * end). The caller's key must name everything the shape depends on: a key's first `build` serves
 * every later use of it.
 */
export class CompiledShapes<R> {
  readonly #statements = new Map<string, CompiledStatement<unknown[], R>>();
  readonly #maxShapes: number;

  /** @param maxShapes how many shapes get a plan; statements of any further shape are built each time. */
  constructor(maxShapes: number) {
    this.#maxShapes = maxShapes;
  }

  /** Runs the statement of shape `key` built by `build` with `values` (in the order `build` reads them). */
  execute(
    db: Kysely<Database>,
    key: string,
    build: (db: Kysely<Database>, values: readonly unknown[]) => Compilable<R>,
    values: readonly unknown[],
  ): Promise<QueryResult<R>> {
    let statement = this.#statements.get(key);
    if (statement === undefined) {
      if (this.#statements.size >= this.#maxShapes) return executeCompilable(db, build(db, values));
      statement = new CompiledStatement<unknown[], R>(values.length, (target, ...marks) => build(target, marks));
      this.#statements.set(key, statement);
    }
    return statement.execute(db, ...values);
  }

  /** How many shapes are planned (tests). */
  get size(): number {
    return this.#statements.size;
  }
}
