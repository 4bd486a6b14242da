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
