import { it } from 'vitest';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres } from './fresh-postgres.js';

/**
 * The two cases of a migration's upgrade test: `check` on a new SQLite database in memory, then on
 * a fresh PostgreSQL database left unmigrated (named from `prefix`), each closed (and dropped)
 * after it. `check` migrates up to the migration before, writes older rows and runs the migration.
 */
export function itUpgradesOnBothDialects(
  prefix: string,
  what: string,
  check: (database: OpenedDatabase) => Promise<void>,
): void {
  it(`SQLite: ${what}`, async () => {
    const database = await openDatabase(':memory:');
    try {
      await check(database);
    } finally {
      await database.close();
    }
  });

  it('PostgreSQL: the same', async () => {
    const pg = await createFreshPostgres(prefix, { migrate: false });
    const database = await openDatabase(pg.url);
    try {
      await check(database);
    } finally {
      await database.close();
      await pg.drop();
    }
  });
}
