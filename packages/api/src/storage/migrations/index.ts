import type { Migration, MigrationProvider } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';
import { initialMigration } from './0001-initial.js';
import { collaborationMigration } from './0002-collaboration.js';
import { jobResponsesMigration } from './0003-job-responses.js';
import { openAiRuntimeMigration } from './0004-openai-runtime.js';
import { leasesAndChangeFeedMigration } from './0005-leases-and-change-feed.js';
import { a2aContextsMigration } from './0006-a2a-contexts.js';
import { memberRolesMigration } from './0007-member-roles.js';
import { teamworkMailboxMigration } from './0008-teamwork-mailbox.js';
import { tasksMigration } from './0009-tasks.js';
import { budgetsMigration } from './0010-budgets.js';
import { teamworkLifecycleMigration } from './0011-teamwork-lifecycle.js';
import { seededHistoryIndexMigration } from './0012-seeded-history-index.js';
import { requestCountIndexMigration } from './0013-request-count-index.js';
import { leanWriteIndexesMigration } from './0014-lean-write-indexes.js';
import { waitingInputIndexMigration } from './0015-waiting-input-index.js';
import { unfinishedPhaseLeaseIndexMigration } from './0016-unfinished-phase-lease-index.js';
import { cachedInputTokensMigration } from './0017-cached-input-tokens.js';
import { historyIndexesMigration } from './0018-history-indexes.js';
import { taskRequestFingerprintMigration } from './0019-task-request-fingerprint.js';
import { toolRequestsMigration } from './0020-tool-requests.js';
import { waitingOwnerIndexMigration } from './0021-waiting-owner-index.js';
import { postgresWaitingOwnerIndexMigration } from './0022-postgres-waiting-owner-index.js';
import { spendReservationHolderMigration } from './0023-spend-reservation-holder.js';

/**
 * The migrations, listed statically (no directory scan), so they bundle and run the same from
 * source, from tsx and from a build.
 *
 * @remarks Names sort in application order; never rename or edit a released migration, add a
 * new one. Numbers may skip (0006 is taken by another line of work): only the order counts.
 */
export class StaticMigrationProvider implements MigrationProvider {
  readonly #dialect: DatabaseDialect;

  constructor(dialect: DatabaseDialect) {
    this.#dialect = dialect;
  }

  async getMigrations(): Promise<Record<string, Migration>> {
    return {
      '0001-initial': initialMigration(this.#dialect),
      '0002-collaboration': collaborationMigration(),
      '0003-job-responses': jobResponsesMigration(),
      '0004-openai-runtime': openAiRuntimeMigration(this.#dialect),
      '0005-leases-and-change-feed': leasesAndChangeFeedMigration(this.#dialect),
      '0006-a2a-contexts': a2aContextsMigration(),
      '0007-member-roles': memberRolesMigration(),
      '0008-teamwork-mailbox': teamworkMailboxMigration(this.#dialect),
      '0009-tasks': tasksMigration(),
      '0010-budgets': budgetsMigration(this.#dialect),
      '0011-teamwork-lifecycle': teamworkLifecycleMigration(),
      '0012-seeded-history-index': seededHistoryIndexMigration(),
      '0013-request-count-index': requestCountIndexMigration(),
      '0014-lean-write-indexes': leanWriteIndexesMigration(),
      '0015-waiting-input-index': waitingInputIndexMigration(),
      '0016-unfinished-phase-lease-index': unfinishedPhaseLeaseIndexMigration(),
      '0017-cached-input-tokens': cachedInputTokensMigration(this.#dialect),
      '0018-history-indexes': historyIndexesMigration(),
      '0019-task-request-fingerprint': taskRequestFingerprintMigration(this.#dialect),
      '0020-tool-requests': toolRequestsMigration(),
      '0021-waiting-owner-index': waitingOwnerIndexMigration(this.#dialect),
      '0022-postgres-waiting-owner-index': postgresWaitingOwnerIndexMigration(this.#dialect),
      '0023-spend-reservation-holder': spendReservationHolderMigration(this.#dialect),
    };
  }
}
