// Contract stores whose statements StatementRecorders keep, for the test that reads the statements
// the store's contract cases ran (history scans, literal values): each case's statements go to
// every recorder its opener was given, so the cases run once for checks that read different roles.
import { join } from 'node:path';
import type { OpenContractStore } from '@agent-teams/testkit';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/database-types.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { emptyContractTables } from './fresh-postgres.js';
import type { StatementRecorder } from './statement-recorder.js';

/** `db` with its statements recorded by each of `recorders` (plugins that leave every node as it is). */
const recordedBy = (db: Kysely<Database>, recorders: readonly StatementRecorder[]) =>
  recorders.reduce((recorded, recorder) => recorder.on(recorded), db);

/**
 * Opens each case's store on a fresh, migrated SQLite file in `dir`, recorded by `recorders`.
 * Its files are numbered from 1: two openers need two directories.
 */
export function recordedSqliteStores(dir: string, ...recorders: StatementRecorder[]): OpenContractStore {
  let next = 0;
  return async ({ events, ids }) => {
    next += 1;
    const opened = await openDatabase(join(dir, `store-${next}.sqlite`));
    await migrateToLatest(opened.db, opened.dialect);
    const store = new KyselyTeamStore(recordedBy(opened.db, recorders), opened.dialect, {
      events,
      ids,
      close: opened.close,
    });
    return { store, close: () => store.close() };
  };
}

/**
 * Opens each case's store on the PostgreSQL database `url()` names (known once a `beforeAll` made
 * it), its tables emptied first so every case's ids start again at 1, recorded by `recorders`.
 */
export function recordedPostgresStores(url: () => string, ...recorders: StatementRecorder[]): OpenContractStore {
  return async ({ events, ids }) => {
    const opened = await openDatabase(url(), { poolSize: 4 });
    await emptyContractTables(opened.db);
    const store = new KyselyTeamStore(recordedBy(opened.db, recorders), opened.dialect, {
      events,
      ids,
      close: opened.close,
    });
    return { store, close: () => store.close() };
  };
}
