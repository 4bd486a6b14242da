import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asTeamId } from '@agent-teams/core';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { LIMIT_SHAPES } from '../../src/storage/literal-limit.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { recentRecords } from '../../src/storage/record-reads.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-literal-limit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reads with a literal limit past the planned limits (LIMIT_SHAPES)', () => {
  it('answers the newest n records, oldest first, for every n up to LIMIT_SHAPES + 1 and beyond', async () => {
    const opened = await openDatabase(join(dir, 'records.sqlite'));
    try {
      await migrateToLatest(opened.db, opened.dialect);
      // Only the record table is read: its team row is left out.
      await sql`pragma foreign_keys = off`.execute(opened.db);
      const total = LIMIT_SHAPES + 4;
      for (let i = 1; i <= total; i += 1) {
        await sql`insert into record_messages (id, team_id, kind, text, truncated, created_at)
          values (${`record_${i}`}, 'team_1', 'NOTE', ${`note ${i}`}, 0, '2026-12-05T00:00:00.000Z')`.execute(
          opened.db,
        );
      }
      // Limits 1 … LIMIT_SHAPES get a plan each; LIMIT_SHAPES + 1 and later are built each time.
      // Each is asked twice, so a planned statement is also reused.
      const limits = [...Array.from({ length: LIMIT_SHAPES + 2 }, (_, i) => i + 1), total + 5, 1, LIMIT_SHAPES];
      for (const limit of [...limits, ...limits]) {
        const records = await recentRecords(opened.db, asTeamId('team_1'), limit);
        const expected = Array.from(
          { length: Math.min(limit, total) },
          (_, i) => `note ${total - Math.min(limit, total) + i + 1}`,
        );
        expect(
          records.map((record) => record.text),
          `limit ${limit}`,
        ).toEqual(expected);
      }
      expect(await recentRecords(opened.db, asTeamId('team_1'), 0)).toEqual([]);
    } finally {
      await opened.close();
    }
  });
});
