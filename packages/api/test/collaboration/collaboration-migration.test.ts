import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { StaticMigrationProvider } from '../../src/storage/migrations/index.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { insertTeamRow } from '../support/raw-rows.js';

describe('migration 0002-collaboration', () => {
  it('backfills the folded search columns of rows written before it', async () => {
    const database = await openDatabase(':memory:');
    try {
      const migrator = new Migrator({ db: database.db, provider: new StaticMigrationProvider(database.dialect) });
      const before = await migrator.migrateTo('0001-initial');
      expect(before.error).toBeUndefined();
      const now = '2026-11-30T04:00:00.000Z';
      await insertTeamRow(database.db, 'team_1', now);
      // Only the columns of migration 0001: the folded ones do not exist yet.
      await database.db
        .insertInto('jobs')
        .values({
          id: 'job_1',
          team_id: 'team_1',
          owner: 'alice',
          kind: 'REQUEST',
          phase: 'COMPLETED',
          unfinished: 0,
          member_id: null,
          conversation_id: 'conversation_1',
          requester_member_id: null,
          requester_conversation_id: null,
          requester_key: '',
          parent_id: null,
          root_id: 'job_1',
          client_key: 'k',
          text: 'Straße ÄÖÜ Task',
          result_text: 'ANSWER Ω',
          result_truncated: 0,
          created_at: now,
          updated_at: now,
        } as never)
        .execute();
      await database.db
        .insertInto('record_messages')
        .values({
          id: 'record_1',
          team_id: 'team_1',
          kind: 'REQUEST',
          job_id: 'job_1',
          member_id: null,
          from_member_id: null,
          text: 'Straße ÄÖÜ Task',
          truncated: 0,
          created_at: now,
        } as never)
        .execute();
      expect(await migrateToLatest(database.db, database.dialect)).toContain('0002-collaboration');
      const job = await database.db.selectFrom('jobs').select(['text_folded', 'result_folded']).executeTakeFirst();
      expect(job).toEqual({ text_folded: 'straße äöü task', result_folded: 'answer ω' });
      const record = await database.db.selectFrom('record_messages').select('text_folded').executeTakeFirst();
      expect(record).toEqual({ text_folded: 'straße äöü task' });
    } finally {
      await database.close();
    }
  });
});
