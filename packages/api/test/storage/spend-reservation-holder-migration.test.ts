import { Migrator } from 'kysely';
import { describe, expect } from 'vitest';
import { releaseSpend } from '../../src/storage/budgets.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { spendReservationHolderMigration } from '../../src/storage/migrations/0023-spend-reservation-holder.js';
import { StaticMigrationProvider } from '../../src/storage/migrations/index.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { itUpgradesOnBothDialects } from '../support/migration-upgrade.js';

/**
 * A database at 0022 holding a reservation is migrated: the old row names no holder, so a release
 * naming one leaves it and a release naming none drops it; a new row keeps its holder; the
 * migration run again (a crash before its record) changes nothing.
 */
async function checkUpgrade(database: OpenedDatabase): Promise<void> {
  const migrator = new Migrator({ db: database.db, provider: new StaticMigrationProvider(database.dialect) });
  expect((await migrator.migrateTo('0022-postgres-waiting-owner-index')).error).toBeUndefined();
  const row = (id: string) => ({
    id,
    team_id: 'team_1',
    owner: 'alice',
    day: '2026-12-07',
    tokens: 90,
    cost: 0,
    created_at: '2026-12-07T23:00:00.000Z',
  });
  // Only the columns before 0023: holder does not exist yet.
  await database.db.insertInto('spend_reservations').values(row('spend_old')).execute();
  expect(await migrateToLatest(database.db, database.dialect)).toContain('0023-spend-reservation-holder');
  await database.db
    .insertInto('spend_reservations')
    .values({ ...row('spend_new'), holder: 'taker' })
    .execute();
  const read = async () =>
    (await database.db.selectFrom('spend_reservations').select(['id', 'holder']).orderBy('id').execute()).map((r) => [
      r.id,
      r.holder,
    ]);
  expect(await read()).toEqual([
    ['spend_new', 'taker'],
    ['spend_old', null],
  ]);
  await spendReservationHolderMigration(database.dialect).up(database.db);
  expect(await read()).toEqual([
    ['spend_new', 'taker'],
    ['spend_old', null],
  ]);
  await releaseSpend(database.db, 'spend_old', 'paused');
  await releaseSpend(database.db, 'spend_new', 'paused');
  expect(await read()).toHaveLength(2);
  await releaseSpend(database.db, 'spend_old');
  await releaseSpend(database.db, 'spend_new', 'taker');
  expect(await read()).toEqual([]);
}

describe('migration 0023-spend-reservation-holder', () => {
  itUpgradesOnBothDialects(
    'spend_reservation_holder',
    'older reservations name no holder, releases name theirs, and running it again changes nothing',
    checkUpgrade,
  );
});
