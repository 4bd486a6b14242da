import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { StaticMigrationProvider } from '../../src/storage/migrations/index.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { toMember } from '../../src/storage/row-mappers.js';
import { insertTeamRow } from '../support/raw-rows.js';

describe('migration 0007-member-roles', () => {
  it('follows 0005 (the skipped number changes nothing) and reads older members as active non-leads without a role', async () => {
    const database = await openDatabase(':memory:');
    try {
      const migrator = new Migrator({ db: database.db, provider: new StaticMigrationProvider(database.dialect) });
      const before = await migrator.migrateTo('0005-leases-and-change-feed');
      expect(before.error).toBeUndefined();
      const now = '2026-11-30T04:00:00.000Z';
      await insertTeamRow(database.db, 'team_1', now);
      // Only the columns before 0007: role, is_lead and retired_at do not exist yet.
      await database.db
        .insertInto('members')
        .values({
          id: 'member_1',
          team_id: 'team_1',
          position: 0,
          name: 'Ada',
          agent_id: 'researcher',
          conversation_id: 'conversation_1',
        } as never)
        .execute();
      expect(await migrateToLatest(database.db, database.dialect)).toContain('0007-member-roles');
      const row = await database.db.selectFrom('members').selectAll().executeTakeFirstOrThrow();
      expect(toMember(row)).toMatchObject({ id: 'member_1', role: null, isLead: false, retiredAt: null });
    } finally {
      await database.close();
    }
  });
});
