import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRead } from '../../src/runtimes/openai/history-cache.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres } from '../support/fresh-postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-seeded-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('migration 0012: the seeded part of a conversation is read through its own index', () => {
  it('SQLite plans the read on conversation_messages_seeded_idx, not on every message of the conversation', async () => {
    const opened = await openDatabase(join(dir, 'plan.sqlite'));
    try {
      expect(await migrateToLatest(opened.db, opened.dialect)).toContain('0012-seeded-history-index');
      // The seeded-history reads of `OpenAiRunStore.history` (`history-cache.ts`): in full, and after a seq.
      for (const afterSeq of [undefined, 7]) {
        const read = seededRead(opened.db, 'conv_1', afterSeq, 400).compile();
        const plan = await opened.db.executeQuery(
          CompiledQuery.raw(`explain query plan ${read.sql}`, [...read.parameters]),
        );
        const details = plan.rows.map((row) => (row as { detail: string }).detail).join(' | ');
        expect(details).toMatch(/USING (COVERING )?INDEX conversation_messages_seeded_idx/);
      }
    } finally {
      await opened.close();
    }
  });

  it('PostgreSQL has the partial index after migrating', async () => {
    const database = await createFreshPostgres('seeded_index');
    const opened = await openDatabase(database.url);
    try {
      await migrateToLatest(opened.db, opened.dialect);
      const found = await sql<{
        indexdef: string;
      }>`select indexdef from pg_indexes where indexname = 'conversation_messages_seeded_idx'`.execute(opened.db);
      expect(found.rows[0]?.indexdef).toMatch(/WHERE \(job_id IS NULL\)/);
    } finally {
      await opened.close();
      await database.drop();
    }
  });
});
