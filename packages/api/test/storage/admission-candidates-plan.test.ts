import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMPTY_ROUND } from '@agent-teams/core';
import type { CompiledQuery } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-candidates-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** SQLite's plan of a compiled query, its parameters bound, one detail line per step. */
async function planOf(db: Parameters<typeof migrateToLatest>[0], compiled: CompiledQuery): Promise<readonly string[]> {
  const plan = await db.executeQuery<{ detail: string }>({
    ...compiled,
    sql: `explain query plan ${compiled.sql}`,
  });
  return plan.rows.map((row) => row.detail);
}

describe('admission reads its candidates by conversation, not by queued job', () => {
  it('SQLite seeks the unfinished-conversation index once per conversation and scans no jobs', async () => {
    const opened = await openDatabase(join(dir, 'plan.sqlite'));
    try {
      await migrateToLatest(opened.db, opened.dialect);
      const seen: CompiledQuery[] = [];
      const db = opened.db.withPlugin({
        transformQuery(args) {
          const compiled = opened.db.getExecutor().compileQuery(args.node, args.queryId);
          if (compiled.sql.startsWith('with recursive')) seen.push(compiled);
          return args.node;
        },
        transformResult: (args) => Promise.resolve(args.result),
      });
      // A round that still names an owner makes the pass take its lock and read the candidates.
      await opened.db
        .updateTable('scheduler_state')
        .set({ round_json: JSON.stringify({ rotation: ['x'], served: [] }) })
        .where('id', '=', 1)
        .execute();
      const store = new KyselyTeamStore(db, opened.dialect, {});
      await store.admit({
        now: new Date().toISOString(),
        plan: () => ({ admit: [], round: EMPTY_ROUND }),
        freeze: () => {
          throw new Error('nothing to freeze');
        },
      });
      expect(seen).toHaveLength(1);
      const details = await planOf(opened.db, seen[0] as CompiledQuery);
      // The loose scan: the next conversation's head after the last one, from the partial index.
      expect(details).toContainEqual(
        expect.stringMatching(
          /SEARCH n USING (COVERING )?INDEX jobs_unfinished_conversation_seq_idx \(conversation_id>\?\)/,
        ),
      );
      // Each head by its key; no step walks the jobs table or another index of it (the first
      // head is the partial index's first entry: a scan that stops at one row).
      expect(details).toContainEqual(expect.stringMatching(/SEARCH j USING INTEGER PRIMARY KEY/));
      expect(details.filter((detail) => /^SCAN (jobs|j|h|n)\b/.test(detail))).toEqual([
        'SCAN n USING COVERING INDEX jobs_unfinished_conversation_seq_idx',
      ]);
      // Nothing is searched by an index SQLite builds for the statement (the join order held).
      expect(details.filter((detail) => /AUTOMATIC|BLOOM/.test(detail))).toEqual([]);
    } finally {
      await opened.close();
    }
  });
});
