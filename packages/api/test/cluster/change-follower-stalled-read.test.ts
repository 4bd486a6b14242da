import { asTeamId, type TeamEvent } from '@agent-teams/core';
import { type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ABANDONED_READS_MAX, ChangeFollower } from '../../src/cluster/change-follower.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { createOneMemberTeam } from '../support/raw-rows.js';
import { stallingAnswers } from '../support/stalling-answers.js';

/**
 * A read of the change feed that never answers. Found by cutting a running server's pooled
 * connections silently (the proxy in front of PostgreSQL dropped them without a reset): the
 * read in flight hung, and since the follower runs one read at a time, no other server's event
 * reached that server's subscribers again, while `/ready` said 200.
 */

const NOW = '2026-01-01T00:00:00.000Z';

let fresh: FreshPostgres;
beforeAll(async () => {
  fresh = await createFreshPostgres('agent_teams_follower_stalled');
});
afterAll(() => fresh?.drop());

describe('the change follower after a read that never answers', () => {
  it('gives the read up, reads again and delivers the events committed meanwhile; stop does not wait for it', async () => {
    const database = await openDatabase(fresh.url, { poolSize: 4 });
    const { stall, held, setStalling } = stallingAnswers();
    const warnings: string[] = [];
    const seen: TeamEvent[] = [];
    const follower = new ChangeFollower({
      db: database.db.withPlugin(stall),
      logger: { info: () => {}, warn: (message) => warnings.push(message), error: () => {} },
      clock: { nowMs: () => Date.now() },
      target: { published: (events) => seen.push(...events) },
      pollMs: 50,
      gapTimeoutMs: 10_000,
      readTimeoutMs: 300,
    });
    try {
      const store = new KyselyTeamStore(database.db, database.dialect);
      const teamId = asTeamId('team_stalled');
      await createOneMemberTeam(store, teamId, NOW);
      await follower.start();
      setStalling(true);
      follower.wake();
      await vi.waitFor(() => expect(held.length).toBeGreaterThan(0), { timeout: 2_000, interval: 10 });
      // The path is back for new reads; the held one never answers.
      setStalling(false);
      // Committed by "another server" after the stalled read began.
      await sql`insert into team_events (team_id, seq, kind, created_at)
        select ${teamId}, g, 'TEAM_CHANGED', ${NOW} from generate_series(3, 7) as g`.execute(database.db);
      await vi.waitFor(() => expect(seen.map((event) => event.seq)).toEqual([3, 4, 5, 6, 7]), {
        timeout: 5_000,
        interval: 20,
      });
      expect(warnings).toContain('change feed read failed');
      const stopped = await Promise.race([
        follower.stop().then(() => 'stopped'),
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2_000)),
      ]);
      expect(stopped).toBe('stopped');
    } finally {
      // Off first: an answer arriving after the release (the read's other statement) would be
      // held for good, its connection never returned, and closing the pool would wait for it.
      setStalling(false);
      for (const release of held.splice(0)) release();
      await follower.stop();
      await database.close();
    }
  }, 20_000);

  it('stops at once while a read waits for an answer, long before the read would be given up', async () => {
    const database = await openDatabase(fresh.url, { poolSize: 2 });
    const { stall, held, setStalling } = stallingAnswers();
    const warnings: string[] = [];
    const follower = new ChangeFollower({
      db: database.db.withPlugin(stall),
      logger: { info: () => {}, warn: (message) => warnings.push(message), error: () => {} },
      clock: { nowMs: () => Date.now() },
      target: { published: () => {} },
      pollMs: 50,
      gapTimeoutMs: 10_000,
      readTimeoutMs: 60_000,
    });
    try {
      await follower.start();
      setStalling(true);
      follower.wake();
      await vi.waitFor(() => expect(held.length).toBeGreaterThan(0), { timeout: 2_000, interval: 10 });
      // A server's whole shutdown has 10 s: the feed must not spend them waiting.
      const stopped = await Promise.race([
        follower.stop().then(() => 'stopped'),
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1_000)),
      ]);
      expect(stopped).toBe('stopped');
      expect(warnings).toEqual([]);
    } finally {
      // Off first: an answer arriving after the release (the read's other statement) would be
      // held for good, its connection never returned, and closing the pool would wait for it.
      setStalling(false);
      for (const release of held.splice(0)) release();
      await follower.stop();
      await database.close();
    }
  }, 20_000);
  it('keeps at most ABANDONED_READS_MAX reads given up and unanswered, and reads again once they settle', async () => {
    const database = await openDatabase(fresh.url, { poolSize: 10 });
    const { stall, held, setStalling } = stallingAnswers();
    let reads = 0;
    const counting: KyselyPlugin = {
      transformQuery: ({ node }) => {
        reads += 1;
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const follower = new ChangeFollower({
      db: database.db.withPlugin(counting).withPlugin(stall),
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      clock: { nowMs: () => Date.now() },
      target: { published: () => {} },
      pollMs: 10,
      gapTimeoutMs: 10_000,
      readTimeoutMs: 50,
    });
    try {
      await follower.start();
      setStalling(true);
      follower.wake();
      const polled = follower.stats.polls;
      // Many polls later (each would send a read of its own), still only the first ones hang.
      await vi.waitFor(() => expect(follower.stats.polls).toBeGreaterThan(polled + 30), { timeout: 5_000 });
      // Each read's statements (the log and the tombstones) hold a connection; no read past the cap
      // is sent, so most of the pool stays free for the writes.
      const hanging = held.length;
      expect(hanging).toBeGreaterThanOrEqual(ABANDONED_READS_MAX);
      const later = follower.stats.polls;
      await vi.waitFor(() => expect(follower.stats.polls).toBeGreaterThan(later + 30), { timeout: 5_000 });
      expect(held).toHaveLength(hanging);
      expect(hanging).toBeLessThan(10);
      setStalling(false);
      for (const release of held.splice(0)) release();
      // Settled: the polls read again.
      const before = reads;
      await vi.waitFor(() => expect(reads).toBeGreaterThan(before + 3), { timeout: 5_000 });
    } finally {
      // Off first: an answer arriving after the release (the read's other statement) would be
      // held for good, its connection never returned, and closing the pool would wait for it.
      setStalling(false);
      for (const release of held.splice(0)) release();
      await follower.stop();
      await database.close();
    }
  }, 20_000);
});
