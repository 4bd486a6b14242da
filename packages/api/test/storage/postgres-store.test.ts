import { asAgentId, asOwnerId, type JobId } from '@agent-teams/core';
import { describeTeamStoreContract, SequentialIds } from '@agent-teams/testkit';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KyselyTeamStore, type KyselyTeamStoreOptions } from '../../src/storage/kysely-team-store.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, emptyContractTables, type FreshPostgres } from '../support/fresh-postgres.js';

// A fresh database per run, dropped afterwards. An unreachable server fails the run: a skipped
// PostgreSQL suite would let the multi-server store rot unnoticed.
let pg: FreshPostgres;
beforeAll(async () => {
  pg = await createFreshPostgres('agent_teams_test');
});
afterAll(() => pg.drop());

describeTeamStoreContract('Kysely on PostgreSQL', async ({ events, ids }) => {
  const database = await openDatabase(pg.url, { poolSize: 4 });
  await emptyContractTables(database.db);
  const store = new KyselyTeamStore(database.db, database.dialect, { events, ids, close: database.close });
  return { store, close: () => store.close() };
});

const NOW = '2026-01-01T00:00:00.000Z';
const RACER = asOwnerId('racer');

/**
 * Two servers' stores on the test database (its teams cleared: sequential ids restart at 1) and
 * one team of the racer's with one member, created through the first.
 */
async function twoServers(clientRequestId: string, events?: KyselyTeamStoreOptions['events']) {
  const ids = new SequentialIds();
  const [a, b] = await Promise.all([openDatabase(pg.url), openDatabase(pg.url)]);
  await sql`TRUNCATE teams RESTART IDENTITY CASCADE`.execute(a.db);
  const stores = [a, b].map(
    (d) => new KyselyTeamStore(d.db, d.dialect, { close: d.close, ...(events ? { events } : {}) }),
  ) as [KyselyTeamStore, KyselyTeamStore];
  const member = {
    id: ids.memberId(),
    name: 'M',
    agentId: asAgentId('researcher'),
    conversationId: ids.conversationId(),
  };
  const { team } = await stores[0].createTeam(
    { id: ids.teamId(), owner: RACER, clientRequestId, fingerprint: 'f', name: 'T', goal: 'G', members: [member] },
    { now: NOW, maxTeams: 20 },
  );
  /** A person's request `id` to the member under `clientKey`, as a decide inserts it. */
  const request = (id: JobId, clientKey: string) => ({
    id,
    recordId: ids.recordId(),
    memberId: member.id,
    conversationId: member.conversationId,
    requester: { memberId: null, conversationId: null },
    parentId: null,
    rootId: id,
    clientKey,
    text: 't',
  });
  return { ids, stores, member, team, request, close: () => Promise.all(stores.map((store) => store.close())) };
}

describe('KyselyTeamStore: several servers on one PostgreSQL database', () => {
  it('answers racing sends of one key on two servers with one job', async () => {
    const { ids, stores, member, team, request, close } = await twoServers('race');
    try {
      const [first, second] = stores;
      const send = (store: KyselyTeamStore) => {
        const id = ids.jobId();
        return store.enqueueRequests({
          owner: RACER,
          teamId: team.id,
          keys: [{ requesterConversationId: null, clientKey: 'same', memberId: member.id }],
          roots: [id],
          now: NOW,
          decide: (snapshot) => {
            const existing = snapshot.existing[0];
            if (existing) return { insert: [], resultIds: [existing.id] };
            return { insert: [request(id, 'same')], resultIds: [id] };
          },
        });
      };
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => send(i % 2 === 0 ? first : second)));
      expect(new Set(results.map((jobs) => jobs[0]?.id)).size).toBe(1);
      expect(await first.countJobs(team.id)).toEqual({ requests: 1, receipts: 0 });
    } finally {
      await close();
    }
  });

  it('numbers the events of racing writes on two servers gap-free, each seq once (one statement per team)', async () => {
    const published: number[] = [];
    const events = { published: (batch: readonly { seq: number }[]) => published.push(...batch.map((e) => e.seq)) };
    const { ids, stores, member, team, request, close } = await twoServers('race-seq', events);
    try {
      const [first, second] = stores;
      const send = (store: KyselyTeamStore, key: string) => {
        const id = ids.jobId();
        const inserted = request(id, key);
        return store.enqueueRequests({
          owner: RACER,
          teamId: team.id,
          keys: [{ requesterConversationId: null, clientKey: key, memberId: member.id }],
          roots: [id],
          now: NOW,
          decide: () => ({ insert: [inserted], resultIds: [id] }),
        });
      };
      published.length = 0;
      await Promise.all(Array.from({ length: 12 }, (_, i) => send(i % 2 === 0 ? first : second, `k${i}`)));
      const stored = await first.readEvents(team.id, 0, 500);
      const last = (await first.findTeam(RACER, team.id))?.lastEventSeq ?? 0;
      expect(stored.map((event) => event.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
      // Each racing send wrote its events under its own seqs: the published ones never overlap.
      expect(new Set(published).size).toBe(published.length);
      expect(published.length).toBeGreaterThanOrEqual(12 * 3);
      expect(stored.filter((event) => event.owner !== RACER)).toEqual([]);
    } finally {
      await close();
    }
  });
});
