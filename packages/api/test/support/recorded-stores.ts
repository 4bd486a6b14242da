// Contract stores whose statements a StatementRecorder keeps, shared by the tests that read the
// statements the store's contract cases ran (literal values, history scans).
import { join } from 'node:path';
import type { OpenContractStore } from '@agent-teams/testkit';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { emptyContractTables } from './fresh-postgres.js';
import type { StatementRecorder } from './statement-recorder.js';

/** Opens each case's store on a fresh, migrated SQLite file in `dir`, recorded by `recorder`. */
export function recordedSqliteStores(dir: string, recorder: StatementRecorder): OpenContractStore {
  let next = 0;
  return async ({ events, ids }) => {
    next += 1;
    const opened = await openDatabase(join(dir, `store-${next}.sqlite`));
    await migrateToLatest(opened.db, opened.dialect);
    const store = new KyselyTeamStore(recorder.on(opened.db), opened.dialect, { events, ids, close: opened.close });
    return { store, close: () => store.close() };
  };
}

/**
 * Opens each case's store on the PostgreSQL database `url()` names (known once a `beforeAll` made
 * it), its tables emptied first so every case's ids start again at 1, recorded by `recorder`.
 */
export function recordedPostgresStores(url: () => string, recorder: StatementRecorder): OpenContractStore {
  return async ({ events, ids }) => {
    const opened = await openDatabase(url(), { poolSize: 4 });
    await emptyContractTables(opened.db);
    const store = new KyselyTeamStore(recorder.on(opened.db), opened.dialect, { events, ids, close: opened.close });
    return { store, close: () => store.close() };
  };
}
