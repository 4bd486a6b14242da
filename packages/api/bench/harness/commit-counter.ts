import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../../src/storage/database-types.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { type StatementTimes, timeStatement } from './statement-times.js';

/** What one kind of commit wrote, e.g. `tx: insert jobs, insert record_messages, insert team_events`. */
export type CommitLabel = string;

/** Counts of statements and commits seen on one connection. */
export interface CommitCounts {
  readonly commits: ReadonlyMap<CommitLabel, number>;
  readonly selects: number;
  readonly writes: number;
  readonly rollbacks: number;
  /** Every statement run (COMMIT included), by its text (`statement-times.ts`): calls and time. */
  readonly statements: StatementTimes;
}

/** A database that counts commits by what they wrote. */
export interface CountingDatabase extends OpenedDatabase {
  counts(): CommitCounts;
  reset(): void;
}

const WRITE = /^\s*(insert\s+into|update|delete\s+from)\s+"?([a-z_]+)"?/i;

/**
 * Opens a SQLite file with the pragmas of `openDatabase` (WAL, SQLite's own synchronous=FULL in place of group commit,
 * busy_timeout, foreign_keys) and counts, at execution time on the one connection, every
 * statement and every commit: an explicit COMMIT is labelled with the writes of its
 * transaction (and how many callers' writes shared it, decision 0224); a write outside a
 * transaction is an autocommit of its own.
 *
 * @remarks For the profile only (no single-server lock; the timed runs use `openDatabase`).
 */
export function openCountingDatabase(file: string): CountingDatabase {
  mkdirSync(dirname(file), { recursive: true });
  const raw = new BetterSqlite3(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('foreign_keys = ON');
  let commits = new Map<CommitLabel, number>();
  let selects = 0;
  let writes = 0;
  let rollbacks = 0;
  let statements: StatementTimes = new Map();
  let open: string[] | null = null;
  /** The callers' writes sharing the open transaction, one savepoint each (decision 0224). */
  let shared = 0;
  const commit = (label: CommitLabel) => commits.set(label, (commits.get(label) ?? 0) + 1);
  const seen = (text: string) => {
    const statement = text.trim().toLowerCase();
    if (statement.startsWith('begin')) {
      open = [];
      shared = 0;
      return;
    }
    if (statement.startsWith('commit')) {
      const tables = [...new Set(open ?? [])].sort().join(', ') || '(no writes)';
      // Shared by several callers: labelled by how many, what they wrote varies with the mix.
      commit(shared > 1 ? `tx of ${shared} writes` : `tx: ${tables}`);
      open = null;
      return;
    }
    // Savepoints are neither reads nor writes; rolling back to one leaves the transaction open.
    if (statement.startsWith('savepoint batch_write')) shared += 1;
    if (statement.startsWith('savepoint') || statement.startsWith('release') || statement.startsWith('rollback to')) {
      return;
    }
    if (statement.startsWith('rollback')) {
      rollbacks += 1;
      open = null;
      return;
    }
    const write = WRITE.exec(text);
    if (write === null) {
      selects += 1;
      return;
    }
    writes += 1;
    const what = `${(write[1] as string).split(/\s+/)[0]?.toLowerCase()} ${write[2]}`;
    if (open === null) commit(`autocommit: ${what}`);
    else open.push(what);
  };
  const counted = new Proxy(raw, {
    get(target, property, receiver) {
      if (property !== 'prepare') return Reflect.get(target, property, receiver);
      return (text: string) => {
        const statement = target.prepare(text);
        return new Proxy(statement, {
          get(inner, name, innerReceiver) {
            const value = Reflect.get(inner, name, innerReceiver);
            if (name !== 'run' && name !== 'all' && name !== 'iterate' && name !== 'get') return value;
            return (...args: unknown[]) => {
              seen(text);
              return timeStatement(statements, text, () => (value as (...a: unknown[]) => unknown).apply(inner, args));
            };
          },
        });
      };
    },
  });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: counted }) });
  return {
    db,
    dialect: 'sqlite',
    target: file,
    close: () => db.destroy(),
    counts: () => ({ commits: new Map(commits), selects, writes, rollbacks, statements: new Map(statements) }),
    reset() {
      commits = new Map();
      statements = new Map();
      selects = 0;
      writes = 0;
      rollbacks = 0;
    },
  };
}
