import BetterSqlite3 from 'better-sqlite3';
import { Checkpointer } from '../../src/storage/sqlite-checkpointer.js';
import { type StatementTimes, timeStatement } from './statement-times.js';

/** How a recorded statement was run: a reader (`all`, `get`, `iterate`), a writer (`run`), or `exec`. */
export type TracedMethod = 'all' | 'get' | 'iterate' | 'run' | 'exec';

/** One better-sqlite3 call of the main thread, as it was made. */
export interface TracedStatement {
  /** The file of the connection that ran it (better-sqlite3's `Database#name`). */
  readonly file: string;
  readonly sql: string;
  readonly method: TracedMethod;
  /** The bound values, copied at the call (Kysely passes one array). */
  readonly args: readonly unknown[];
  /** It threw (a unique violation a write retries, say): the replay expects it to throw too. */
  readonly threw: boolean;
}

/** A recording in progress (see {@link recordStatements}). */
export interface StatementRecorder {
  /** Where the timed part of the trace begins: the index of the next call. */
  mark(): number;
  /** Restores better-sqlite3 and returns every call recorded. */
  stop(): TracedStatement[];
}

/** Statements that only open or end a transaction (as `sqlite-statement-cache.ts` tells them apart). */
const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

type Method = (this: BetterSqlite3.Statement, ...args: unknown[]) => unknown;

function copied(args: readonly unknown[]): unknown[] {
  return args.map((arg) => (Array.isArray(arg) ? [...arg] : arg));
}

/**
 * Records every statement this thread runs through better-sqlite3, whatever prepared it (Kysely,
 * the store's statement cache, a held connection), by wrapping the `Statement` prototype's
 * methods and `Database#exec` until `stop()`. Worker threads (the checkpointer) are not seen.
 *
 * @remarks For the `engine-floor` benchmark only: the server's statements replayed without the
 * server (see {@link replayStatements}). One recorder at a time.
 */
export function recordStatements(): StatementRecorder {
  const probe = new BetterSqlite3(':memory:');
  const statementProto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, Method>;
  const databaseProto = Object.getPrototypeOf(probe) as {
    exec: (this: BetterSqlite3.Database, sql: string) => unknown;
  };
  probe.close();
  const trace: TracedStatement[] = [];
  /** Adds the call to the trace, runs it, and notes whether it threw. */
  const traced = <T>(call: Omit<TracedStatement, 'threw'>, run: () => T): T => {
    const entry = { ...call, threw: false };
    trace.push(entry);
    try {
      return run();
    } catch (error) {
      entry.threw = true;
      throw error;
    }
  };
  const originals = new Map<string, Method>();
  for (const method of ['all', 'get', 'iterate', 'run'] as const) {
    const original = statementProto[method] as Method;
    originals.set(method, original);
    statementProto[method] = function (this: BetterSqlite3.Statement, ...args: unknown[]) {
      const call = { file: this.database.name, sql: this.source, method, args: copied(args) };
      return traced(call, () => original.apply(this, args));
    };
  }
  const exec = databaseProto.exec;
  databaseProto.exec = function (this: BetterSqlite3.Database, sql: string) {
    return traced({ file: this.name, sql, method: 'exec', args: [] }, () => exec.call(this, sql));
  };
  return {
    mark: () => trace.length,
    stop() {
      for (const [method, original] of originals) statementProto[method] = original;
      databaseProto.exec = exec;
      return trace;
    },
  };
}

/** What a replay cost. */
export interface Replay {
  /** Calls replayed in the timed part. */
  readonly statements: number;
  /** User + system CPU of this process over the timed part, in milliseconds (the checkpoint worker's included). */
  readonly cpuMs: number;
  readonly wallMs: number;
  /** Each statement's time in the timed part, when asked for (`timed`; the timing adds its own cost). */
  readonly times?: StatementTimes;
}

/**
 * Runs `trace` on the SQLite `file` (a copy of the database the trace began on), opened with the
 * server's pragmas and its background checkpointer, each statement prepared once: the calls before
 * `from` untimed, the rest timed. Readers fetch raw rows (arrays): no row objects are built.
 * Throws when a call's outcome differs from the recording (it threw there and not here, or the
 * other way round): the replay would no longer be doing the server's work.
 */
export async function replayStatements(
  file: string,
  trace: readonly TracedStatement[],
  from: number,
  timed = false,
): Promise<Replay> {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('temp_store = MEMORY');
  const checkpointer = new Checkpointer(file, () => {});
  const prepared = new Map<string, BetterSqlite3.Statement>();
  const statementOf = (sql: string) => {
    let statement = prepared.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      if (statement.reader) statement.raw(true);
      prepared.set(sql, statement);
    }
    return statement;
  };
  // As the server's statement observer (`open-database.ts`): a write marks the transaction, and
  // once none is open its writes committed, which the checkpointer hears of.
  let wrote = false;
  let times: StatementTimes | undefined;
  const run = (call: TracedStatement) => {
    if (call.method === 'exec') return db.exec(call.sql);
    const statement = statementOf(call.sql);
    if (!statement.readonly && !TRANSACTION_CONTROL.test(call.sql)) wrote = true;
    return statement.reader && call.method !== 'run' ? statement.all(...call.args) : statement.run(...call.args);
  };
  const one = (call: TracedStatement) => {
    let threw = false;
    let failure: unknown = 'it did not throw';
    try {
      if (times === undefined) run(call);
      else timeStatement(times, call.sql, () => run(call));
    } catch (error) {
      threw = true;
      failure = error;
    }
    if (threw !== call.threw) {
      throw new Error(`[agent-teams/bench] the replay diverged at: ${call.sql.slice(0, 120)} (${String(failure)})`);
    }
    if (wrote && !db.inTransaction) {
      wrote = false;
      checkpointer.committed();
    }
  };
  try {
    for (let i = 0; i < from; i += 1) one(trace[i] as TracedStatement);
    if (timed) times = new Map();
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = from; i < trace.length; i += 1) one(trace[i] as TracedStatement);
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return {
      statements: trace.length - from,
      cpuMs: (used.user + used.system) / 1000,
      wallMs,
      ...(times === undefined ? {} : { times }),
    };
  } finally {
    await checkpointer.close();
    db.close();
  }
}
