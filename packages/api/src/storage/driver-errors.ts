import type { DatabaseDialect } from './open-database.js';

/**
 * What a driver error means to the store: try the transaction again, a unique index refused a
 * row (re-read: another server won a race), or anything else (a bug or an outage).
 */
export const DriverErrorKind = {
  RETRYABLE: 'RETRYABLE',
  UNIQUE_VIOLATION: 'UNIQUE_VIOLATION',
  OTHER: 'OTHER',
} as const;
export type DriverErrorKind = (typeof DriverErrorKind)[keyof typeof DriverErrorKind];

/**
 * The one table of driver conditions the store reacts to (graphile-worker keeps its retryable
 * SQLSTATEs the same way). SQLite codes come from better-sqlite3's `SqliteError.code`;
 * PostgreSQL codes are SQLSTATEs from `pg`'s `DatabaseError.code`.
 */
const DRIVER_ERROR_TABLE: Readonly<Record<DatabaseDialect, Readonly<Record<string, DriverErrorKind>>>> = {
  sqlite: {
    SQLITE_BUSY: DriverErrorKind.RETRYABLE,
    SQLITE_BUSY_SNAPSHOT: DriverErrorKind.RETRYABLE,
    SQLITE_LOCKED: DriverErrorKind.RETRYABLE,
    SQLITE_CONSTRAINT_UNIQUE: DriverErrorKind.UNIQUE_VIOLATION,
    SQLITE_CONSTRAINT_PRIMARYKEY: DriverErrorKind.UNIQUE_VIOLATION,
  },
  postgres: {
    /** unique_violation */
    '23505': DriverErrorKind.UNIQUE_VIOLATION,
    /** serialization_failure */
    '40001': DriverErrorKind.RETRYABLE,
    /** deadlock_detected */
    '40P01': DriverErrorKind.RETRYABLE,
    /** lock_not_available */
    '55P03': DriverErrorKind.RETRYABLE,
  },
};

/**
 * PostgreSQL's feature_not_supported (0A000) as a prepared statement raises it once a migration
 * changed its result columns: retryable, since the retry prepares it anew (`pg-prepared.ts`).
 * Every other 0A000 is a fault of the statement and stays OTHER.
 */
const STALE_PREPARED_STATEMENT = /cached plan must not change result type/i;

/** Classifies a thrown value through the driver error table. */
export function classifyDriverError(error: unknown, dialect: DatabaseDialect): DriverErrorKind {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return DriverErrorKind.OTHER;
  if (dialect === 'postgres' && code === '0A000') {
    return STALE_PREPARED_STATEMENT.test(String((error as { message?: unknown }).message))
      ? DriverErrorKind.RETRYABLE
      : DriverErrorKind.OTHER;
  }
  return DRIVER_ERROR_TABLE[dialect][code] ?? DriverErrorKind.OTHER;
}

/**
 * SQLite's result codes of a database that cannot work now (its file, its disk, its memory), with
 * their extended forms (`SQLITE_IOERR_WRITE`, say): no statement's or row's fault.
 */
const SQLITE_ENVIRONMENT = /^SQLITE_(IOERR|FULL|CORRUPT|NOTADB|CANTOPEN|READONLY|NOMEM|INTERRUPT|PROTOCOL|PERM|NOLFS)/;

/**
 * SQLSTATE classes of a PostgreSQL server that cannot work now: connection exception (08),
 * insufficient resources (53), operator intervention (57: a shutdown, a cancel), system error
 * (58) and internal error (XX).
 */
const POSTGRES_ENVIRONMENT_CLASSES: ReadonlySet<string> = new Set(['08', '53', '57', '58', 'XX']);

/** A Node.js system error code (`ECONNRESET`, `EPIPE`): the socket to the database failed. No SQLSTATE class begins with E. */
const SYSTEM_ERROR_CODE = /^E[A-Z]+$/;

/**
 * True when `error` is a failure of the database itself (a lost connection, a full disk, an I/O
 * error) rather than of the statement that met it: whatever ran next would fail the same way.
 */
export function isEnvironmentError(error: unknown, dialect: DatabaseDialect): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return false;
  if (SYSTEM_ERROR_CODE.test(code)) return true;
  return dialect === 'sqlite' ? SQLITE_ENVIRONMENT.test(code) : POSTGRES_ENVIRONMENT_CLASSES.has(code.slice(0, 2));
}

/**
 * A storage failure the store could not resolve (retries exhausted, or an unexpected driver
 * condition). Carries the classification; the driver error stays in `cause` for the log, and the
 * GraphQL edge masks it as an unexpected error.
 */
export class StorageError extends Error {
  readonly kind: DriverErrorKind;

  constructor(kind: DriverErrorKind, message: string, options?: { cause?: unknown }) {
    super(`[agent-teams/api] ${message}`, options);
    this.name = 'StorageError';
    this.kind = kind;
  }
}
