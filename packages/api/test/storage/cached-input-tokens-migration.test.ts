import { Migrator } from 'kysely';
import { describe, expect } from 'vitest';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { cachedInputTokensMigration } from '../../src/storage/migrations/0017-cached-input-tokens.js';
import { StaticMigrationProvider } from '../../src/storage/migrations/index.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { usageTotals } from '../../src/storage/usage.js';
import { itUpgradesOnBothDialects } from '../support/migration-upgrade.js';

/**
 * A database at 0016 holding a usage row is migrated: the row reads no cached tokens and its
 * totals say so; a new row keeps its count; the migration run again (a crash before its record)
 * changes nothing.
 */
async function checkUpgrade(database: OpenedDatabase): Promise<void> {
  const migrator = new Migrator({ db: database.db, provider: new StaticMigrationProvider(database.dialect) });
  expect((await migrator.migrateTo('0016-unfinished-phase-lease-index')).error).toBeUndefined();
  const row = (id: string) => ({
    id,
    team_id: 'team_1',
    job_id: 'job_1',
    conversation_id: 'conversation_1',
    model: 'm',
    input_tokens: 100,
    output_tokens: 10,
    cost: 0.5,
    created_at: '2026-12-05T21:00:00.000Z',
  });
  // Only the columns before 0017: cached_input_tokens does not exist yet.
  await database.db.insertInto('model_usage').values(row('usage_old')).execute();
  expect(await migrateToLatest(database.db, database.dialect)).toContain('0017-cached-input-tokens');
  await database.db
    .insertInto('model_usage')
    .values({ ...row('usage_new'), cached_input_tokens: 60 })
    .execute();
  const read = async () =>
    (await database.db.selectFrom('model_usage').select(['id', 'cached_input_tokens']).orderBy('id').execute()).map(
      (r) => [r.id, Number(r.cached_input_tokens)],
    );
  expect(await read()).toEqual([
    ['usage_new', 60],
    ['usage_old', 0],
  ]);
  const totals = await usageTotals(database.db, [{ kind: 'team', id: 'team_1' as never }]);
  expect(totals.get('team:team_1')).toEqual({
    inputTokens: 200,
    cachedInputTokens: 60,
    outputTokens: 20,
    cost: 1,
    calls: 2,
  });
  await cachedInputTokensMigration(database.dialect).up(database.db);
  expect(await read()).toEqual([
    ['usage_new', 60],
    ['usage_old', 0],
  ]);
}

describe('migration 0017-cached-input-tokens', () => {
  itUpgradesOnBothDialects(
    'cached_input_tokens',
    'older usage rows read no cached tokens, and running it again changes nothing',
    checkUpgrade,
  );
});
