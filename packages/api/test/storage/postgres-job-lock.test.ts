// PostgreSQL: a job's write locks its team in one statement (the team row, never the job's other
// tables), a write scoped to another owner locks nothing and answers NOT_FOUND at once, and the
// statements that do it are compiled once (none refused its plan).
import { asAgentId, asOwnerId, decideRequests, type Job, JobPhase, transition } from '@agent-teams/core';
import { SequentialIds } from '@agent-teams/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planCounts } from '../../src/storage/compiled-statement.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';

let fresh: FreshPostgres;
let store: KyselyTeamStore;
let locker: pg.Client;
beforeAll(async () => {
  fresh = await createFreshPostgres('agent_teams_job_lock');
  const opened = await openDatabase(fresh.url);
  store = new KyselyTeamStore(opened.db, opened.dialect, { close: opened.close });
  locker = new pg.Client({ connectionString: fresh.url });
  await locker.connect();
});
afterAll(async () => {
  await locker.end();
  await store.close();
  await fresh.drop();
});

const ids = new SequentialIds();
const alice = asOwnerId('alice');
const bob = asOwnerId('bob');
const now = '2026-01-01T00:00:00.000Z';

/** A READY team of one member of `alice` with one queued request. */
async function queuedRequest(): Promise<Job> {
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
  const plan = {
    recipients: [
      { memberId: member.id, conversationId: member.conversationId, jobId: ids.jobId(), recordId: ids.recordId() },
    ],
    text: 'Lock test',
    clientKey: `lock-${teamId}`,
    requester: { memberId: null, conversationId: null },
    chain: null,
  };
  const [job] = await store.enqueueRequests({
    owner: alice,
    teamId,
    keys: [{ requesterConversationId: null, clientKey: plan.clientKey, memberId: member.id }],
    roots: [],
    now,
    decide: (snapshot) => decideRequests(plan, snapshot),
  });
  if (job === undefined) throw new Error('nothing enqueued');
  return job;
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
    for (let i = 0; i < 200; i += 1) {
      const { rows } = await locker.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      if (rows[0].n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(settled).toBe(false);
    await release();
    const { job: next, changed } = await write;
    expect(changed).toBe(true);
    expect(next.phase).toBe(JobPhase.CANCELLED);
  });

  it('runs compiled statements, none refused', async () => {
    const before = planCounts();
    const job = await queuedRequest();
    await store.updateJob(job.id, cancel, { now });
    expect(planCounts().refused).toBe(before.refused);
  });
});
