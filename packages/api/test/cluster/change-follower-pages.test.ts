import { asTeamId, type TeamEvent } from '@agent-teams/core';
import { type CompiledQuery, type KyselyPlugin, type QueryId, type RootOperationNode, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChangeFollower } from '../../src/cluster/change-follower.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { createOneMemberTeam } from '../support/raw-rows.js';

const NOW = '2026-01-01T00:00:00.000Z';
/** The follower's page (`PAGE` in change-follower.ts). */
const PAGE = 500;

let fresh: FreshPostgres;
beforeAll(async () => {
  fresh = await createFreshPostgres('agent_teams_follower_pages');
});
afterAll(() => fresh?.drop());

describe('the change follower reads pages of a literal size (decision 0231)', () => {
  it('writes its page size into both reads and follows more than two full pages in change order', async () => {
    const database = await openDatabase(fresh.url, { poolSize: 2 });
    try {
      const store = new KyselyTeamStore(database.db, database.dialect);
      const teamId = asTeamId('team_pages');
      await createOneMemberTeam(store, teamId, NOW);
      // Every read the follower runs, as PostgreSQL's compiler wrote it.
      const reads: CompiledQuery[] = [];
      const nodes = new WeakMap<QueryId, RootOperationNode>();
      const recorder: KyselyPlugin = {
        transformQuery: ({ node, queryId }) => {
          nodes.set(queryId, node);
          return node;
        },
        transformResult: async ({ queryId, result }) => {
          const node = nodes.get(queryId);
          if (node !== undefined) reads.push(database.db.getExecutor().compileQuery(node, queryId));
          return result;
        },
      };
      const seen: TeamEvent[] = [];
      const follower = new ChangeFollower({
        db: database.db.withPlugin(recorder),
        logger: { info: () => {}, warn: () => {}, error: () => {} },
        clock: { nowMs: () => Date.now() },
        target: { published: (events) => seen.push(...events) },
        pollMs: 60_000,
        gapTimeoutMs: 10_000,
      });
      await follower.start();
      try {
        // Committed by "another server": two full pages and a part of one, after the cursor.
        const count = 2 * PAGE + 100;
        await sql`insert into team_events (team_id, seq, kind, created_at)
          select ${teamId}, g, 'TEAM_CHANGED', ${NOW} from generate_series(3, ${count + 2}) as g`.execute(database.db);
        follower.wake();
        await vi.waitFor(() => expect(seen).toHaveLength(count), { timeout: 10_000, interval: 20 });
        expect(seen.map((event) => event.seq)).toEqual(Array.from({ length: count }, (_, i) => i + 3));
        const pages = reads.filter((read) => / limit \d+$/.test(read.sql));
        // Each round trip reads the events and the tombstones: at least three of each here.
        expect(pages.filter((read) => read.sql.includes('"team_events"')).length).toBeGreaterThanOrEqual(3);
        expect(pages.filter((read) => read.sql.includes('"team_deletions"')).length).toBeGreaterThanOrEqual(3);
        for (const read of pages) {
          expect(read.sql).toMatch(new RegExp(` limit ${PAGE}$`));
          expect(read.parameters).not.toContain(PAGE);
        }
      } finally {
        await follower.stop();
      }
    } finally {
      await database.close();
    }
  });
});
