import { asOwnerId, type Job, JobPhase, RuntimeError } from '@agent-teams/core';
import { type MemoryLogger, StaticCatalog } from '@agent-teams/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import type { App } from '../../src/app/create-app.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { openTestApp } from '../support/test-app.js';
import { TEST_AGENTS, waitFor, wrapRuntime } from './scheduler-harness.js';

// What a ride on PostgreSQL must never wait for (decision 0229), and a ridden job whose first
// start fails. The safety-net pass is set to ten minutes, so only the behaviour under test can
// make these jobs move within the tests' timeouts.

const ALICE = asOwnerId('alice');
const NO_SAFETY_NET = { safetyNetMs: 600_000 };

let db: FreshPostgres;
/** Server A: a scheduler whose first start of a 'flaky' job fails once (transiently). */
let a: App & { readonly logger: MemoryLogger };
/** Server C: takes requests, admits nothing (no scheduler). */
let c: App;
/** Jobs whose first start already failed once. */
const failedOnce = new Set<string>();

beforeAll(async () => {
  db = await createFreshPostgres('agent_teams_ride_waits');
  a = await openTestApp({
    database: await openDatabase(db.url, { poolSize: 4 }),
    ids: createRandomIds(),
    catalog: new StaticCatalog(TEST_AGENTS),
    lease: { serverId: 'srv_a' },
    scheduler: NO_SAFETY_NET,
    wrapRuntime: (runtime) =>
      wrapRuntime(runtime, {
        start: async (args) => {
          if (args.input.text.includes('flaky') && !failedOnce.has(args.runKey)) {
            failedOnce.add(args.runKey);
            throw new RuntimeError('transient', 'HTTP 503 from the agent host');
          }
          return runtime.start(args);
        },
      }),
  });
  c = await openTestApp({
    database: await openDatabase(db.url, { poolSize: 4 }),
    ids: createRandomIds(),
    catalog: new StaticCatalog(TEST_AGENTS),
    lease: { serverId: 'srv_c' },
    scheduler: false,
  });
}, 60_000);
afterAll(async () => {
  await a?.close();
  await c?.close();
  await db?.drop();
});

/** A team of two; `send` sends `text` to its first member only. */
async function team(tag: string) {
  const created = await a.core.teams.create(ALICE, {
    clientRequestId: `t-${tag}`,
    name: tag,
    goal: 'Test',
    members: [0, 1].map((i) => ({ name: `m${i}`, agentId: 'researcher' })),
  });
  const [first] = await a.core.teams.members([created.id]);
  if (first === undefined) throw new Error('no member');
  const send = (app: App, text: string, key: string): Promise<readonly Job[]> =>
    app.core.requests.send(ALICE, { teamId: created.id, memberIds: [first.id], text, clientRequestId: key });
  return { id: created.id, send };
}

async function phases(ids: readonly string[]): Promise<string[]> {
  return (await a.store.findJobs(ids as Job['id'][])).map((job) => job.phase);
}

describe('admission riding an enqueue on PostgreSQL never waits for another team', () => {
  it("answers a request while another team's writer holds that team, and admits that team's job later", async () => {
    const one = await team('one');
    const two = await team('two');
    await a.scheduler?.idle();
    // A request to team two that no admission has seen yet: server C has no scheduler, and A
    // admits only for its own commits (and its ten-minute safety net).
    const [queued] = await two.send(c, '!sleep 50', 'r-two');
    if (queued === undefined) throw new Error('no job');
    await a.scheduler?.idle();
    expect(await phases([queued.id])).toEqual([JobPhase.QUEUED]);
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('begin');
      // What any write of team two (a job step, a message, a task) holds during its transaction.
      await holder.query('select id from teams where id = $1 for update', [two.id]);
      // The ride plans team two's job too (the oldest head): waiting for its lock, this send would
      // not return until the holder commits below.
      const [sent] = await one.send(a, '!sleep 50', 'r-one');
      if (sent === undefined) throw new Error('no job');
      expect(sent.phase).toBe(JobPhase.ADMITTING);
      expect(await phases([queued.id])).toEqual([JobPhase.QUEUED]);
      await holder.query('commit');
      await waitFor(
        async () => (await phases([sent.id, queued.id])).every((phase) => phase === JobPhase.COMPLETED),
        'both completed',
      );
    } finally {
      await holder.end();
    }
  });
});

describe('a ridden job whose first start fails', () => {
  it('is started again after the backoff, not left to the safety net', async () => {
    const one = await team('flaky');
    await a.scheduler?.idle();
    const [job] = await one.send(a, 'flaky hello', 'r-flaky');
    if (job === undefined) throw new Error('no job');
    expect(job.phase).toBe(JobPhase.ADMITTING);
    await waitFor(async () => (await phases([job.id]))[0] === JobPhase.COMPLETED, 'completed after one retry');
    expect(failedOnce.has(job.id)).toBe(true);
  });
});

describe('a ride chosen as a deadlock victim', () => {
  it('commits the request alone, without an error or a backoff, and a pass admits it', async () => {
    const one = await team('victim');
    await a.scheduler?.idle();
    const errorsBefore = a.logger.entries.filter((entry) => entry.level === 'error').length;
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      // The first admission's write of a job fails as PostgreSQL fails a deadlock's victim.
      await client.query(`
        create sequence ride_victim_seq;
        create function ride_victim() returns trigger language plpgsql as $$
        begin
          if new.phase = 'ADMITTING' and nextval('ride_victim_seq') = 1 then
            raise exception 'chosen as the victim by the test' using errcode = '40P01';
          end if;
          return new;
        end $$;
        create trigger ride_victim before update of phase on jobs for each row execute function ride_victim();`);
      const [job] = await one.send(a, 'hello', 'r-victim');
      if (job === undefined) throw new Error('no job');
      expect(job.phase).toBe(JobPhase.QUEUED);
      await waitFor(async () => (await phases([job.id]))[0] === JobPhase.COMPLETED, 'completed by a pass');
      const { rows } = await client.query<{ n: string }>('select last_value as n from ride_victim_seq');
      expect(Number(rows[0]?.n)).toBeGreaterThanOrEqual(2);
      // No admission failure logged (and so no backoff): the victim is not a fault.
      expect(a.logger.entries.filter((entry) => entry.level === 'error').slice(errorsBefore)).toEqual([]);
    } finally {
      await client.query('drop trigger if exists ride_victim on jobs; drop function if exists ride_victim()');
      await client.end();
    }
  });
});
