import {
  asAgentId,
  asOwnerId,
  type EventSink,
  type Logger,
  type TeamEvent,
  type TeamId,
  TeamStatus,
} from '@agent-teams/core';
import { SequentialIds } from '@agent-teams/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ClusterChanges, createClusterChanges } from '../../src/cluster/create-cluster-changes.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';

const NOW = '2026-01-01T00:00:00.000Z';
const OWNER = asOwnerId('alice');
const WAIT = { timeout: 10_000, interval: 20 };

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** One "server": its own pool, store and change feed; `seen` is what its local fan-out got. */
interface Node {
  readonly store: KyselyTeamStore;
  readonly cluster: ClusterChanges;
  readonly seen: TeamEvent[];
  /** Wake-ups from other servers (`onWake` calls). */
  readonly wakes: number;
  close(): Promise<void>;
}

let fresh: FreshPostgres;
const ids = new SequentialIds();
const open: Node[] = [];

beforeAll(async () => {
  fresh = await createFreshPostgres('agent_teams_changes');
});

afterAll(async () => {
  await Promise.all(open.map((node) => node.close()));
  await fresh?.drop();
});

async function startNode(serverId: string, opts: { notify?: boolean; pollMs?: number } = {}): Promise<Node> {
  const database = await openDatabase(fresh.url, { poolSize: 3 });
  const seen: TeamEvent[] = [];
  const target: EventSink = { published: (events) => seen.push(...events) };
  let wakes = 0;
  const cluster = createClusterChanges({
    connectionString: fresh.url,
    db: database.db,
    serverId,
    logger: quiet,
    target,
    onWake: () => {
      wakes += 1;
    },
    ...opts,
  });
  const store = new KyselyTeamStore(database.db, database.dialect, {
    // As in main.ts: local commits reach the local listeners and the cluster feed.
    events: {
      published: (events) => {
        target.published(events);
        cluster.localSink.published(events);
      },
    },
  });
  const node: Node = {
    store,
    cluster,
    seen,
    get wakes() {
      return wakes;
    },
    close: async () => {
      await cluster.stop();
      await database.close();
    },
  };
  await cluster.start();
  open.push(node);
  return node;
}

async function stopNode(node: Node): Promise<void> {
  open.splice(open.indexOf(node), 1);
  await node.close();
}

async function createTeam(store: KyselyTeamStore): Promise<TeamId> {
  const member = {
    id: ids.memberId(),
    name: 'M',
    agentId: asAgentId('researcher'),
    conversationId: ids.conversationId(),
  };
  const id = ids.teamId();
  const { team } = await store.createTeam(
    { id, owner: OWNER, clientRequestId: id, fingerprint: 'f', name: 'T', goal: 'G', members: [member] },
    { now: NOW, maxTeams: 1_000 },
  );
  return team.id;
}

function seqsOf(events: readonly TeamEvent[], teamId: TeamId): number[] {
  return events.filter((event) => event.teamId === teamId).map((event) => event.seq);
}

async function listeningClients(): Promise<number> {
  const client = new pg.Client({ connectionString: fresh.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name IN ('agent-teams-listen', 'agent-teams-notify')`,
    );
    return Number(rows[0]?.n);
  } finally {
    await client.end();
  }
}

describe('cluster change feed on PostgreSQL', () => {
  it("hands a change made through server A to server B's sink in seq order, and to A's sink once", async () => {
    const [a, b] = [await startNode('srv_a1'), await startNode('srv_b1')];
    const teamId = await createTeam(a.store);
    await a.store.setTeamStatus(teamId, TeamStatus.DISCONNECTED, NOW);
    await a.store.setTeamStatus(teamId, TeamStatus.READY, NOW);
    // Creation logs the team and its member; each status change logs both again.
    const expected = [1, 2, 3, 4, 5, 6];
    expect(seqsOf(a.seen, teamId)).toEqual(expected);
    await vi.waitFor(() => expect(seqsOf(b.seen, teamId)).toEqual(expected), WAIT);
    expect(b.seen.filter((event) => event.teamId === teamId)).toEqual(a.seen.filter((e) => e.teamId === teamId));
    // A reads its own events back from the log, and skips them.
    await vi.waitFor(() => expect(a.cluster.stats.skippedOwn).toBeGreaterThanOrEqual(expected.length), WAIT);
    expect(seqsOf(a.seen, teamId)).toEqual(expected);
    expect(b.cluster.stats.wakes).toBeGreaterThan(0);
    await Promise.all([stopNode(a), stopNode(b)]);
  });

  it('tells server B that a team was deleted through server A, after its last event', async () => {
    const [a, b] = [await startNode('srv_a6'), await startNode('srv_b6')];
    const teamId = await createTeam(a.store);
    await vi.waitFor(() => expect(seqsOf(b.seen, teamId)).toEqual([1, 2]), WAIT);
    await a.store.deleteTeam(OWNER, teamId, NOW);
    // The log went with the team; the tombstone carries the announced seq to the other server.
    await vi.waitFor(() => expect(seqsOf(b.seen, teamId)).toEqual([1, 2, 3]), WAIT);
    expect(b.seen.at(-1)).toMatchObject({ teamId, owner: OWNER, seq: 3, kind: 'TEAM_CHANGED' });
    expect(seqsOf(a.seen, teamId)).toEqual([1, 2, 3]);
    await Promise.all([stopNode(a), stopNode(b)]);
  });

  it('delivers by polling alone when notifications are off', async () => {
    const [a, b] = [
      await startNode('srv_a2', { notify: false, pollMs: 20 }),
      await startNode('srv_b2', { notify: false, pollMs: 20 }),
    ];
    const teamId = await createTeam(a.store);
    await vi.waitFor(() => expect(seqsOf(b.seen, teamId)).toEqual([1, 2]), WAIT);
    expect(a.cluster.stats.notifies).toBe(0);
    expect(b.cluster.stats.wakes).toBe(0);
    await Promise.all([stopNode(a), stopNode(b)]);
  });

  it('delivers, once each, events committed out of change id order', async () => {
    const [a, b] = [await startNode('srv_a3'), await startNode('srv_b3')];
    const [held, later] = [await createTeam(a.store), await createTeam(a.store)];
    await vi.waitFor(() => expect(seqsOf(b.seen, later)).toEqual([1, 2]), WAIT);
    const raw = new pg.Client({ connectionString: fresh.url });
    await raw.connect();
    try {
      await raw.query('BEGIN');
      const { rows } = await raw.query<{ change_id: string }>(
        `INSERT INTO team_events (team_id, seq, kind, created_at) VALUES ($1, 1000, 'TEAM_CHANGED', $2)
         RETURNING change_id`,
        [held, NOW],
      );
      const heldId = Number(rows[0]?.change_id);
      // Takes a higher change id than the held row and commits first.
      await a.store.setTeamStatus(later, TeamStatus.DISCONNECTED, NOW);
      await vi.waitFor(() => expect(seqsOf(b.seen, later)).toEqual([1, 2, 3, 4]), WAIT);
      expect(b.cluster.stats.position).toBeLessThan(heldId);
      expect(b.cluster.stats.pendingGaps).toBeGreaterThan(0);
      await raw.query('COMMIT');
    } finally {
      await raw.end();
    }
    await vi.waitFor(() => expect(seqsOf(b.seen, held)).toEqual([1, 2, 1000]), WAIT);
    // A few more reads must not deliver either event again.
    const polls = b.cluster.stats.polls;
    b.cluster.poll();
    await vi.waitFor(() => expect(b.cluster.stats.polls).toBeGreaterThanOrEqual(polls + 3), WAIT);
    expect(seqsOf(b.seen, held)).toEqual([1, 2, 1000]);
    expect(seqsOf(b.seen, later)).toEqual([1, 2, 3, 4]);
    expect(b.cluster.stats.pendingGaps).toBe(0);
    await Promise.all([stopNode(a), stopNode(b)]);
  });

  it("calls onWake for another server's wake-up, never for its own", async () => {
    const [a, b] = [await startNode('srv_a4'), await startNode('srv_b4')];
    a.cluster.announce();
    await vi.waitFor(() => expect(b.wakes).toBe(1), WAIT);
    b.cluster.announce();
    // Notifications reach a listener in commit order: A's own came before B's and was ignored.
    await vi.waitFor(() => expect(a.wakes).toBeGreaterThan(0), WAIT);
    expect(a.wakes).toBe(1);
    await Promise.all([stopNode(a), stopNode(b)]);
  });

  it('coalesces a burst into one more notify, and stop() closes its connections and polling', async () => {
    const before = await listeningClients();
    const a = await startNode('srv_a5');
    await vi.waitFor(async () => expect(await listeningClients()).toBe(before + 2), WAIT);
    const teamId = await createTeam(a.store);
    const events = a.seen.filter((event) => event.teamId === teamId);
    for (let i = 0; i < 50; i += 1) a.cluster.localSink.published(events);
    await stopNode(a);
    // The team's commit and the whole burst fall in one notify delay window: one notify, which
    // stop() sends rather than drops.
    expect(a.cluster.stats.notifies).toBe(1);
    await vi.waitFor(async () => expect(await listeningClients()).toBe(before), WAIT);
    const polls = a.cluster.stats.polls;
    a.cluster.poll();
    expect(a.cluster.stats.polls).toBe(polls);
  });
});
