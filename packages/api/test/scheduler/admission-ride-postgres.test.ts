import { ACTIVE_PHASES, asOwnerId, type Job, JobPhase, type TeamEvent, TeamEventKind } from '@agent-teams/core';
import { type MemoryLogger, StaticCatalog } from '@agent-teams/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import type { App } from '../../src/app/create-app.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { openTestApp } from '../support/test-app.js';
import { TEST_AGENTS, waitFor } from './scheduler-harness.js';

// Decision 0229: on PostgreSQL too, a local enqueue admits in its own transaction when the
// planning lock is free, and never waits for it when another transaction holds it. Two servers
// (applications, each with its own pool, scheduler and lease) on one real database.

const ALICE = asOwnerId('alice');

type TestApp = App & { readonly logger: MemoryLogger };

let db: FreshPostgres;
const apps: TestApp[] = [];

beforeAll(async () => {
  db = await createFreshPostgres('agent_teams_ride');
  for (const id of ['srv_a', 'srv_b']) {
    apps.push(
      await openTestApp({
        database: await openDatabase(db.url, { poolSize: 4 }),
        ids: createRandomIds(),
        catalog: new StaticCatalog(TEST_AGENTS),
        lease: { serverId: id },
      }),
    );
  }
  // A first request goes through a pass, which stores the planning round (its row is the lock).
  const [first] = await sendOne(appAt(0), 'warm up', 'warm-up');
  await waitFor(async () => (await phaseOf(first)) === JobPhase.COMPLETED, 'the first request completed');
}, 60_000);
afterAll(async () => {
  for (const app of apps.splice(0)) await app.close();
  await db?.drop();
});

function appAt(index: number): TestApp {
  const app = apps[index];
  if (app === undefined) throw new Error(`no server ${index}`);
  return app;
}

/** Creates a team of two and sends `text` to its first member only: one job. */
async function sendOne(app: App, text: string, tag: string): Promise<readonly Job[]> {
  const members = [0, 1].map((i) => ({ name: `m${i}`, agentId: 'researcher' }));
  const team = await app.core.teams.create(ALICE, { clientRequestId: `t-${tag}`, name: tag, goal: 'Test', members });
  const [first] = await app.core.teams.members([team.id]);
  if (first === undefined) throw new Error('no member');
  return app.core.requests.send(ALICE, { teamId: team.id, memberIds: [first.id], text, clientRequestId: `r-${tag}` });
}

async function leaseServer(jobId: string): Promise<string | null | undefined> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ lease_server: string | null }>(
      'select lease_server from jobs where id = $1',
      [jobId],
    );
    return rows[0]?.lease_server;
  } finally {
    await client.end();
  }
}

async function phaseOf(job: Job | undefined): Promise<JobPhase | undefined> {
  if (job === undefined) throw new Error('no job');
  const [stored] = await appAt(0).store.findJobs([job.id]);
  return stored?.phase;
}

describe('admission riding the enqueue on PostgreSQL (decision 0229)', () => {
  it('rides in the fewest round trips: the freeze reads with its lock, the savepoint left to COMMIT (decision 0250)', async () => {
    // What each pool client is asked to send (one round trip each), recorded while `on`. Set
    // before the server opens its pool: each client binds its query function when it connects.
    const byClient = new Map<object, string[]>();
    let on = false;
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: object, ...args: unknown[]) {
      if (on) {
        const [first] = args as [{ text?: string } | string];
        const text = typeof first === 'string' ? first : (first?.text ?? '');
        byClient.set(this, [...(byClient.get(this) ?? []), text.replace(/\s+/g, ' ').trim()]);
      }
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const app = await openTestApp({
      database: await openDatabase(db.url, { poolSize: 4 }),
      ids: createRandomIds(),
      catalog: new StaticCatalog(TEST_AGENTS),
      lease: { serverId: 'srv_counted' },
    });
    try {
      for (const other of [...apps, app]) await other.scheduler?.idle();
      on = true;
      const [job] = await sendOne(app, 'Instant answer', 'round-trips');
      on = false;
      if (job === undefined) throw new Error('no job');
      expect(job.phase).toBe(JobPhase.ADMITTING);
      const enqueue = [...byClient.values()].find((texts) => texts.includes('SAVEPOINT admission_ride'));
      if (enqueue === undefined) throw new Error('the send did not ride');
      const ride = enqueue.slice(enqueue.indexOf('SAVEPOINT admission_ride'));
      // Released by the enqueue's COMMIT, not by a round trip of its own.
      expect(ride.filter((text) => /^RELEASE/i.test(text))).toEqual([]);
      expect(ride.at(-1)).toMatch(/^commit$/i);
      // The member's mailbox and the team's records come with the statement that locks the team.
      const locking = ride.filter((text) => /from "teams" where "id" = \$\d+ for update skip locked$/.test(text));
      expect(locking).toHaveLength(1);
      expect(locking[0]).toContain('team_message_deliveries');
      expect(locking[0]).toContain('record_messages');
      expect(ride.filter((text) => /^select .* from "(team_message_deliveries|record_messages)"/.test(text))).toEqual(
        [],
      );
      await waitFor(async () => (await app.store.findJobs([job.id]))[0]?.phase === JobPhase.COMPLETED, 'completed');
    } finally {
      on = false;
      pg.Client.prototype.query = query;
      await app.close();
    }
  });

  it('admits a request in its own commit, leased to the server that took it', async () => {
    const b = appAt(1);
    for (const app of apps) await app.scheduler?.idle();
    const published: TeamEvent[][] = [];
    const stop = b.events.listen((events) => published.push([...events]));
    try {
      const [job] = await sendOne(b, '!sleep 100', 'one-commit');
      if (job === undefined) throw new Error('no job');
      expect(job.phase).toBe(JobPhase.ADMITTING);
      const [stored] = await b.store.findJobs([job.id]);
      expect(stored?.phase === JobPhase.ADMITTING || stored?.phase === JobPhase.RUNNING).toBe(true);
      // The request and its admission in one commit: the job's change published once, in the first batch.
      const first = published.find((batch) => batch.some((event) => event.jobId === job.id));
      expect(first?.filter((event) => event.kind === TeamEventKind.JOB_CHANGED && event.jobId === job.id)).toHaveLength(
        1,
      );
      expect(await leaseServer(job.id)).toBe('srv_b');
      await waitFor(async () => (await phaseOf(job)) === JobPhase.COMPLETED, 'completed');
    } finally {
      stop();
    }
  });

  it('commits the request without waiting while another transaction holds the planning lock; a pass admits it after', async () => {
    const a = appAt(0);
    for (const app of apps) await app.scheduler?.idle();
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select round_json from scheduler_state where id = 1 for update');
      // Were the ride to wait for the lock, this send would not return until the lock is released.
      const [job] = await sendOne(a, 'hello', 'lock-held');
      expect(job?.phase).toBe(JobPhase.QUEUED);
      expect(await phaseOf(job)).toBe(JobPhase.QUEUED);
      expect(a.logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
      await holder.query('commit');
      await waitFor(async () => (await phaseOf(job)) === JobPhase.COMPLETED, 'completed after the lock was released');
    } finally {
      await holder.end();
    }
  });

  it('keeps the database cap while both servers take requests at once, without a deadlock', {
    timeout: 60_000,
  }, async () => {
    const sends = Array.from({ length: 12 }, (_, i) => sendOne(appAt(i % 2), '!sleep 200', `both-${i}`));
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const active = (await appAt(0).store.listActiveJobs()).filter((job) => ACTIVE_PHASES.includes(job.phase));
        most = Math.max(most, active.length);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const jobs = (await Promise.all(sends)).flat();
    expect(jobs).toHaveLength(12);
    await waitFor(
      async () =>
        (await appAt(0).store.findJobs(jobs.map((job) => job.id))).every((job) => job.phase === JobPhase.COMPLETED),
      'every request completed',
      45_000,
    );
    sampling = false;
    await sampler;
    // Eight slots in the default policy, whichever server admitted.
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(8);
    for (const app of apps) {
      expect(app.logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
    }
  });
});
