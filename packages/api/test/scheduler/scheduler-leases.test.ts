import { asOwnerId, type Core, type Job, type JobId, JobPhase, RecordKind, type TeamStore } from '@agent-teams/core';
import { type MemoryLogger, StaticCatalog } from '@agent-teams/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import type { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import type { Scheduler } from '../../src/scheduler/create-scheduler.js';
import type { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { openTestApp } from '../support/test-app.js';
import { TEST_AGENTS, waitFor, wrapRuntime } from './scheduler-harness.js';

// Two schedulers ("servers") in one process on one real PostgreSQL database, each with its own
// connection pool, store, scripted runtime and lease. The two-process suite in test/cluster covers
// the same with real processes and signals; this one can pause a server between two statements.

const OWNER = asOwnerId('alice');

/** A store whose calls wait while paused, as a stopped process's would (calls already running finish). */
function pausable(store: KyselyTeamStore): { store: TeamStore; pause(): void; resume(): void } {
  let gate: Promise<void> | null = null;
  let open = () => {};
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        while (gate !== null) await gate;
        return value.apply(target, args);
      };
    },
  });
  return {
    store: proxy as TeamStore,
    pause() {
      gate ??= new Promise<void>((resolve) => {
        open = resolve;
      });
    },
    resume() {
      gate = null;
      open();
    },
  };
}

interface Server {
  readonly id: string;
  readonly database: OpenedDatabase;
  readonly core: Core;
  readonly scheduler: Scheduler;
  readonly runtime: ScriptedRuntime;
  readonly logger: MemoryLogger;
  readonly paused: ReturnType<typeof pausable>;
  /** Job ids whose runs this server started, polled or resumed. */
  readonly touched: Set<string>;
  close(): Promise<void>;
}

let pg: FreshPostgres;
const open: Server[] = [];

beforeAll(async () => {
  pg = await createFreshPostgres('agent_teams_leases');
});
afterEach(async () => {
  for (const server of open.splice(0)) await server.close();
});
afterAll(async () => {
  await pg.drop();
});

async function startServer(id: string, lease: { ttlMs: number; heartbeatMs: number }): Promise<Server> {
  const touched = new Set<string>();
  const touch = (jobId: string) => touched.add(jobId);
  let paused: ReturnType<typeof pausable> | null = null;
  let runtime: ScriptedRuntime | null = null;
  const app = await openTestApp({
    database: await openDatabase(pg.url, { poolSize: 4 }),
    ids: createRandomIds(),
    catalog: new StaticCatalog(TEST_AGENTS),
    store: (_events, sql) => {
      paused = pausable(sql as KyselyTeamStore);
      return paused.store;
    },
    onRuntime: (built) => {
      runtime = built;
    },
    wrapRuntime: (inner) =>
      wrapRuntime(inner, {
        start: (args) => {
          touch(args.context.jobId);
          return inner.start(args);
        },
        poll: (args) => {
          touch(args.context.jobId);
          return inner.poll(args);
        },
        resume: (args) => {
          touch(args.context.jobId);
          return inner.resume(args);
        },
      }),
    lease: { serverId: id, ...lease },
    // Without the cross-server wake-up (the cluster feed), the other server's passes come from this net.
    cluster: false,
    scheduler: { safetyNetMs: 100 },
  });
  const { core, scheduler, database } = app;
  if (paused === null || runtime === null || scheduler === null || database === null) throw new Error('incomplete');
  const gate: ReturnType<typeof pausable> = paused;
  const server: Server = {
    id,
    database,
    core,
    runtime,
    logger: app.logger,
    paused: gate,
    touched,
    scheduler,
    async close() {
      gate.resume();
      await app.close();
    },
  };
  open.push(server);
  return server;
}

let teamCounter = 0;
async function teamWithMembers(core: Core, size: number) {
  teamCounter += 1;
  const team = await core.teams.create(OWNER, {
    clientRequestId: `team-${teamCounter}`,
    name: `Team ${teamCounter}`,
    goal: 'Leases',
    members: Array.from({ length: size }, (_, index) => ({ name: `m${index}`, agentId: 'researcher' })),
  });
  return { team, members: [...(await core.teams.members([team.id]))] };
}

async function send(core: Core, teamId: Job['teamId'], memberIds: readonly Job['memberId'][], text: string) {
  teamCounter += 1;
  return core.requests.send(OWNER, {
    teamId,
    memberIds: memberIds as never,
    text,
    clientRequestId: `req-${teamCounter}`,
  });
}

async function jobsOf(server: Server, ids: readonly JobId[]): Promise<Job[]> {
  const found = await Promise.all(ids.map((id) => server.core.jobs.get(OWNER, id)));
  return found.filter((job): job is Job => job !== null);
}

async function allFinished(server: Server, ids: readonly JobId[], phase: JobPhase = JobPhase.COMPLETED) {
  return waitFor(
    async () => {
      const jobs = await jobsOf(server, ids);
      return jobs.length === ids.length && jobs.every((job) => job.phase === phase) ? jobs : null;
    },
    `${ids.length} jobs ${phase}`,
    30_000,
  );
}

/** Terminal records per job, and assistant messages per job in the members' conversations. */
async function outcomesOf(server: Server, jobs: readonly Job[]) {
  const db = server.database.db;
  const records = await db
    .selectFrom('record_messages')
    .select(['job_id', 'kind'])
    .where('kind', '=', RecordKind.COMPLETED)
    .where(
      'job_id',
      'in',
      jobs.map((job) => job.id),
    )
    .execute();
  const replies = await db
    .selectFrom('conversation_messages')
    .select('job_id')
    .where('role', '=', 'ASSISTANT')
    .where(
      'job_id',
      'in',
      jobs.map((job) => job.id),
    )
    .execute();
  const count = (rows: readonly { job_id: string | null }[]) => {
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(row.job_id ?? '', (counts.get(row.job_id ?? '') ?? 0) + 1);
    return jobs.map((job) => counts.get(job.id) ?? 0);
  };
  return { results: count(records), replies: count(replies) };
}

describe('job leases across two schedulers on one PostgreSQL database', () => {
  it('drives every job from exactly one server', { timeout: 60_000 }, async () => {
    const a = await startServer('server-a', { ttlMs: 5_000, heartbeatMs: 1_000 });
    const b = await startServer('server-b', { ttlMs: 5_000, heartbeatMs: 1_000 });
    const { team, members } = await teamWithMembers(a.core, 6);
    const sent = [
      ...(await send(
        a.core,
        team.id,
        members.slice(0, 3).map((m) => m.id),
        '!sleep 150\n!reply via a',
      )),
      ...(await send(
        b.core,
        team.id,
        members.slice(3).map((m) => m.id),
        '!sleep 150\n!reply via b',
      )),
    ];
    const ids = sent.map((job) => job.id);
    await allFinished(a, ids);
    for (const id of ids) expect([a.touched.has(id), b.touched.has(id)].filter(Boolean)).toHaveLength(1);
    const { results, replies } = await outcomesOf(a, await jobsOf(a, ids));
    expect(results).toEqual(ids.map(() => 1));
    expect(replies).toEqual(ids.map(() => 1));
  });

  it('reclaims a stalled server’s jobs after its lease expires and refuses its late writes', {
    timeout: 60_000,
  }, async () => {
    // A lease of 3 s renewed every 0.5 s: a busy test machine may delay a renewal, never by 2.5 s.
    const lease = { ttlMs: 3_000, heartbeatMs: 500 };
    const a = await startServer('server-a', lease);
    const { team, members } = await teamWithMembers(a.core, 4);
    const sent = await send(
      a.core,
      team.id,
      members.map((m) => m.id),
      '!sleep 800\n!reply finished',
    );
    const ids = sent.map((job) => job.id);
    // Server a admits and drives them all. Server b starts only then: started before, its pass
    // could hold the planning lock when a enqueues, and admit some of them itself (decision 0229).
    await waitFor(async () => (await jobsOf(a, ids)).every((job) => job.phase === JobPhase.RUNNING), 'running');
    const b = await startServer('server-b', lease);
    // A whole pass of b finds them held by a live server and leaves them.
    b.scheduler.wake();
    await b.scheduler.idle();
    expect(ids.every((id) => a.touched.has(id) && !b.touched.has(id))).toBe(true);

    // Server a stalls (a stopped process): its store calls wait, its runs are lost as in a crash.
    a.paused.pause();
    a.runtime.dispose();
    const done = await allFinished(b, ids);
    expect(done.map((job) => job.result?.text)).toEqual(ids.map(() => 'slept 800 ms\nfinished'));
    expect(ids.every((id) => b.touched.has(id))).toBe(true);

    // Server a wakes up: whatever it still wanted to write is refused, nothing changes.
    a.paused.resume();
    a.scheduler.wake();
    await a.scheduler.idle();
    const after = await jobsOf(b, ids);
    expect(after.map((job) => [job.phase, job.result?.text, job.finishedAt])).toEqual(
      done.map((job) => [job.phase, job.result?.text, job.finishedAt]),
    );
    const { results, replies } = await outcomesOf(b, after);
    expect(results).toEqual(ids.map(() => 1));
    expect(replies).toEqual(ids.map(() => 1));
  });

  it('hands its jobs over at once on a graceful stop, long before the lease would expire', {
    timeout: 60_000,
  }, async () => {
    const a = await startServer('server-a', { ttlMs: 600_000, heartbeatMs: 5_000 });
    const b = await startServer('server-b', { ttlMs: 600_000, heartbeatMs: 5_000 });
    const { team, members } = await teamWithMembers(a.core, 3);
    const sent = await send(
      a.core,
      team.id,
      members.map((m) => m.id),
      '!sleep 600\n!reply handed over',
    );
    const ids = sent.map((job) => job.id);
    await waitFor(async () => (await jobsOf(a, ids)).every((job) => job.phase === JobPhase.RUNNING), 'running');
    await a.close();
    open.splice(open.indexOf(a), 1);
    // Released at once: no lease row of a, and its jobs have no holder.
    const held = await b.database.db.selectFrom('jobs').select('lease_server').where('id', 'in', ids).execute();
    expect(held.every((row) => row.lease_server !== 'server-a')).toBe(true);
    const done = await allFinished(b, ids);
    expect(done.map((job) => job.result?.text)).toEqual(ids.map(() => 'slept 600 ms\nhanded over'));
    const leases = await b.database.db.selectFrom('server_leases').select('server_id').execute();
    expect(leases.map((row) => row.server_id)).toEqual(['server-b']);
  });
});
