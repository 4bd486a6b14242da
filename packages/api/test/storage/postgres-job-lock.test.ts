// PostgreSQL: a job's write locks its team in one statement (the team row, never the job's other
// tables), a write scoped to another owner locks nothing and answers NOT_FOUND at once, the
// scheduler's fenced write locks team and job in one statement (team first), a commit publishes
// the jobs, record messages and team it wrote as they read back, and the statements that do it are
// compiled once (none refused its plan).
import { asAgentId, asOwnerId, type Job, JobPhase, type RecordMessage, type Team, transition } from '@agent-teams/core';
import { SequentialIds } from '@agent-teams/testkit';
import type { KyselyPlugin } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planCounts } from '../../src/storage/compiled-statement.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { lockTeamWithJob } from '../../src/storage/team-job-lock.js';
import { runWrite } from '../../src/storage/write-transaction.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { enqueueFromPerson } from '../support/queued-requests.js';

let fresh: FreshPostgres;
let store: KyselyTeamStore;
/** The same database through a handle that counts the statements sent (see {@link selects}). */
let counted: KyselyTeamStore;
let selects = 0;
/** The same database through a store whose commits are recorded as published (`CommittedRows`). */
let observed: KyselyTeamStore;
const published: { jobs: Job[]; records: RecordMessage[]; teams: Team[] }[] = [];
let locker: pg.Client;
let database: Awaited<ReturnType<typeof openDatabase>>;
beforeAll(async () => {
  fresh = await createFreshPostgres('agent_teams_job_lock');
  const opened = await openDatabase(fresh.url);
  database = opened;
  store = new KyselyTeamStore(opened.db, opened.dialect, { close: opened.close });
  counted = new KyselyTeamStore(opened.db.withPlugin(countingPlugin()), opened.dialect);
  observed = new KyselyTeamStore(opened.db, opened.dialect, {
    events: {
      published: (_events, rows) =>
        published.push({
          jobs: [...(rows?.jobs.values() ?? [])],
          records: [...(rows?.records.values() ?? [])],
          teams: [...(rows?.teams.values() ?? [])],
        }),
    },
  });
  locker = new pg.Client({ connectionString: fresh.url });
  await locker.connect();
});
afterAll(async () => {
  await locker.end();
  await store.close();
  await fresh.drop();
});

/** Another session can lock the job's row at once: nobody holds it. */
async function expectJobRowFree(jobId: string): Promise<void> {
  const other = new pg.Client({ connectionString: fresh.url });
  await other.connect();
  try {
    await other.query('BEGIN');
    const { rows } = await other.query('SELECT id FROM jobs WHERE id = $1 FOR UPDATE NOWAIT', [jobId]);
    expect(rows).toEqual([{ id: jobId }]);
    await other.query('ROLLBACK');
  } finally {
    await other.end();
  }
}

/** Counts the SELECT statements sent through a handle into {@link selects}. */
function countingPlugin(): KyselyPlugin {
  return {
    transformQuery(args) {
      if (args.node.kind === 'SelectQueryNode') selects += 1;
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  };
}

const ids = new SequentialIds();
const alice = asOwnerId('alice');
const bob = asOwnerId('bob');
const now = '2026-01-01T00:00:00.000Z';

/** A READY team of one member of `alice` with one queued request. */
async function queuedRequest(through: KyselyTeamStore = store): Promise<Job> {
  const member = {
    id: ids.memberId(),
    name: 'A',
    agentId: asAgentId('researcher'),
    conversationId: ids.conversationId(),
  };
  const teamId = ids.teamId();
  await store.createTeam(
    { id: teamId, owner: alice, clientRequestId: teamId, fingerprint: 'f', name: 'T', goal: 'G', members: [member] },
    { now, maxTeams: 20 },
  );
  await store.setTeamStatus(teamId, 'READY', now);
  return enqueueFromPerson(through, ids, {
    owner: alice,
    teamId,
    member,
    text: 'Lock test',
    clientKey: `lock-${teamId}`,
    now,
  });
}

/** Waits until a session of this database waits for a lock (a write blocked on a held row). */
async function waitForLockWait(): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    const { rows } = await locker.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    if (rows[0].n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no session waited for a lock');
}

const cancel = (j: Job) => transition(j, { type: 'CANCEL' }, { now, ids });

/** Holds `teamId`'s row lock in another connection until the returned release is called. */
async function holdTeam(teamId: string): Promise<() => Promise<void>> {
  await locker.query('BEGIN');
  await locker.query('SELECT id FROM teams WHERE id = $1 FOR UPDATE', [teamId]);
  return async () => {
    await locker.query('ROLLBACK');
  };
}

describe("a job's write on PostgreSQL", () => {
  it("answers NOT_FOUND for another owner's job at once, even while its team is locked", async () => {
    const job = await queuedRequest();
    const release = await holdTeam(job.teamId);
    try {
      // Would wait for the lock (and time out the test) if the team were locked before the owner check.
      await expect(store.updateJob(job.id, cancel, { now, owner: bob })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      await expect(store.updateJob(ids.jobId(), cancel, { now, owner: alice })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    } finally {
      await release();
    }
  });

  it('waits for the team lock before it reads the job, then writes', async () => {
    const job = await queuedRequest();
    const release = await holdTeam(job.teamId);
    let settled = false;
    const write = store.updateJob(job.id, cancel, { now, owner: alice }).finally(() => {
      settled = true;
    });
    // The write is blocked on the team row: wait until PostgreSQL shows it waiting for a lock.
    await waitForLockWait();
    expect(settled).toBe(false);
    await release();
    const { job: next, changed } = await write;
    expect(changed).toBe(true);
    expect(next.phase).toBe(JobPhase.CANCELLED);
  });

  it("locks a fenced job's team, then its row, in one statement, and reads the row as committed meanwhile", async () => {
    const job = await queuedRequest();
    await locker.query("UPDATE jobs SET lease_server = 'srv_a', lease_fence = 7 WHERE id = $1", [job.id]);
    const lease = { serverId: 'srv_a', fence: 7 };
    let seen: Job | undefined;
    const look = (j: Job) => {
      seen = j;
      return { ok: true as const, job: j, effects: [] };
    };
    // One statement: both locks and the row (a SELECT counts once, its subqueries with it).
    selects = 0;
    await counted.updateJob(job.id, look, { now, lease });
    expect(selects).toBe(1);

    const release = await holdTeam(job.teamId);
    const write = store.updateJob(job.id, look, { now, lease });
    await waitForLockWait();
    // Waiting for the team, it holds no lock on the job row yet.
    await expectJobRowFree(job.id);
    // Changed under the team lock while the write waits: the write must see it.
    await locker.query("UPDATE jobs SET updated_at = '2026-01-01T00:00:09.000Z' WHERE id = $1", [job.id]);
    await locker.query('COMMIT');
    await write;
    expect(seen?.updatedAt).toBe('2026-01-01T00:00:09.000Z');
    await release().catch(() => undefined);
  });

  it('publishes the jobs and record messages a commit wrote as they read back', async () => {
    published.length = 0;
    const job = await queuedRequest(observed);
    await observed.updateJob(job.id, cancel, { now });
    const [enqueued, cancelled] = published;
    expect(published).toHaveLength(2);
    expect(enqueued?.jobs).toEqual([job]);
    expect(cancelled?.jobs).toEqual(await store.findJobs([job.id]));
    expect(cancelled?.jobs[0]?.phase).toBe(JobPhase.CANCELLED);
    const records = published.flatMap((entry) => entry.records);
    expect(records.length).toBeGreaterThan(0);
    expect(records).toEqual(await store.findRecords(records.map((record) => record.id)));
    // The team as the statement that numbered each commit's events returned it: the last one is
    // the row read back now, and the enqueue's was one revision and its own events behind.
    expect(cancelled?.teams).toEqual(await store.findTeams([job.teamId]));
    expect(enqueued?.teams.map((team) => team.id)).toEqual([job.teamId]);
    expect(enqueued?.teams[0]?.lastEventSeq).toBeLessThan(Number(cancelled?.teams[0]?.lastEventSeq));
  });

  it("locks a team and reads its job under the lock in one statement, the freeze's reads in the next (an admission's freeze)", async () => {
    const job = await queuedRequest();
    const ctx = { db: database.db, dialect: database.dialect, sink: null, ids: null };
    const counting = { ...ctx, db: database.db.withPlugin(countingPlugin()) };
    selects = 0;
    const quiet = await runWrite(counting, now, (scope) => lockTeamWithJob(scope, job.teamId, job.id));
    // The lock and its job; then the freeze's reads, a statement of its own so that it reads
    // what the lock's previous holder committed (`freeze-reads-after-lock.test.ts`).
    expect(selects).toBe(2);
    const { rows: teams } = await locker.query('SELECT * FROM teams WHERE id = $1', [job.teamId]);
    expect(quiet?.team).toEqual(teams[0]);
    expect(quiet?.job.id).toBe(job.id);
    // Another team's job, or none: nothing.
    expect(await runWrite(ctx, now, (scope) => lockTeamWithJob(scope, job.teamId, 'job_none'))).toBeUndefined();

    const release = await holdTeam(job.teamId);
    const reading = runWrite(ctx, now, (scope) => lockTeamWithJob(scope, job.teamId, job.id));
    await waitForLockWait();
    // Waiting for the team, it holds no lock on the job row yet.
    await expectJobRowFree(job.id);
    await locker.query("UPDATE jobs SET updated_at = '2026-01-01T00:00:08.000Z' WHERE id = $1", [job.id]);
    await locker.query('COMMIT');
    expect((await reading)?.job.updated_at).toBe('2026-01-01T00:00:08.000Z');
    await release().catch(() => undefined);
  });

  it('runs compiled statements, none refused', async () => {
    const before = planCounts();
    const job = await queuedRequest();
    await store.updateJob(job.id, cancel, { now });
    expect(planCounts().refused).toBe(before.refused);
  });
});
