import type { Kysely, Migration } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';
import { addTextColumnOnce } from './add-column-once.js';

/**
 * `tasks.request_fingerprint`: the hash of the input of a `createTask` that carried a
 * `clientRequestId` (`createFingerprint` of the core). A retry under the same key is compared
 * with it rather than with the task's current fields, which an edit or a status change since the
 * creation made differ, so the retry was refused as IDEMPOTENCY_CONFLICT. NULL for tasks created
 * without a key, and for tasks created before this migration: their retries keep the old rule
 * (the current title and details). Nullable without a default, so no table is rewritten.
 * Safe to run again (`addTextColumnOnce`).
 */
export function taskRequestFingerprintMigration(dialect: DatabaseDialect): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await addTextColumnOnce(db, dialect, 'tasks', 'request_fingerprint');
    },
  };
}
