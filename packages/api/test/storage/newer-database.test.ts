// A database a newer Agent Teams migrated (a downgrade, or an older server restarted beside
// upgraded ones on PostgreSQL) is refused at start with a sentence naming what this build does
// not know, and nothing is migrated. It failed as "database migration unknown failed" with a
// stack trace (Kysely's "corrupted migrations"), and this build would misread the newer rows.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DatabaseNewerError } from '../../src/storage/database-newer-error.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { StaticMigrationProvider } from '../../src/storage/migrations/index.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { databaseTargets } from '../support/database-targets.js';

const TARGETS = databaseTargets('agent_teams_newer_database');

describe.each(TARGETS)('a database a newer version migrated (%s)', (_name, target) => {
  it('is refused with the migrations this build does not know, and nothing is migrated', async () => {
    const database = await openDatabase(await target());
    try {
      await migrateToLatest(database.db, database.dialect);
      const known = Object.keys(await new StaticMigrationProvider(database.dialect).getMigrations());
      const latest = known.at(-1) as string;
      // A newer build's two migrations, and one of ours it has not run yet (removed below).
      const stamp = new Date().toISOString();
      for (const name of ['9001-from-a-newer-build', '9002-and-another']) {
        await sql`insert into kysely_migration (name, timestamp) values (${name}, ${stamp})`.execute(database.db);
      }
      await sql`delete from kysely_migration where name = ${latest}`.execute(database.db);
      const before = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);

      const refused = await migrateToLatest(database.db, database.dialect).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DatabaseNewerError);
      expect((refused as DatabaseNewerError).unknown).toEqual(['9001-from-a-newer-build', '9002-and-another']);
      expect((refused as Error).message).toContain(
        'migrations 9001-from-a-newer-build, 9002-and-another, which this version does not know',
      );
      expect((refused as Error).message).toContain(`it knows up to ${latest}`);
      // Nothing ran: our pending migration stays pending.
      const after = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
      expect(after.rows).toEqual(before.rows);

      // Without the newer build's rows, it migrates as before.
      await sql`delete from kysely_migration where name like '900%'`.execute(database.db);
      expect(await migrateToLatest(database.db, database.dialect)).toEqual([latest]);
    } finally {
      await database.close();
    }
  });

  it('migrates a new database (SQLite: no migration table yet; PostgreSQL: made migrated) to every migration', async () => {
    const database = await openDatabase(await target());
    try {
      const known = Object.keys(await new StaticMigrationProvider(database.dialect).getMigrations());
      const ran = await migrateToLatest(database.db, database.dialect);
      expect(ran).toEqual(database.dialect === 'sqlite' ? known : []);
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
      expect(applied.rows.map((row) => row.name)).toEqual(known);
    } finally {
      await database.close();
    }
  });
});
