// PostgreSQL: a pass's claim that finds nothing orphaned is one plain read (the held jobs and the
// orphans in one statement), not a write transaction of three round trips; an orphan still goes
// through the claim's transaction, under its lock, and is taken over.
import { asOwnerId, JobPhase } from '@agent-teams/core';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { recordedPostgresAppPerFile, teamOfTwo } from '../support/recorded-postgres-app.js';
import { waitFor } from './scheduler-harness.js';

const ALICE = asOwnerId('alice');
const SERVER = 'srv_claim_orphans';

const recorded = recordedPostgresAppPerFile('agent_teams_claim_orphans', SERVER);

/** The claim transaction's locking read of orphans (`claimActiveJobs`). */
const lockingClaim = (s: { text: string }) => /^select "j"\."id", "j"\."lease_server" from "jobs"/.test(s.text);

/** A request to member `memberIndex` of a new team whose turn sleeps 1.5 s, once its job runs. */
async function runningJob(app: ReturnType<typeof recorded>['app'], tag: string, memberIndex: 0 | 1) {
  const { team, memberIds } = await teamOfTwo(app, ALICE, tag);
  const [job] = await app.core.requests.send(ALICE, {
    teamId: team.id,
    memberIds: [memberIds[memberIndex]],
    text: '!sleep 1500',
    clientRequestId: `r-${tag}`,
  });
  if (job === undefined) throw new Error('no job');
  await waitFor(async () => (await app.store.findJobs([job.id]))[0]?.phase === JobPhase.RUNNING, 'running');
  return job;
}

/** Runs `work` with a connection of its own to the test's database. */
async function asAdmin<T>(url: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

describe('a claim on PostgreSQL', () => {
  it('with nothing orphaned, opens no transaction: every pass of a request reads its held jobs in one statement', async () => {
    const { app, trips } = recorded();
    const { team, memberIds } = await teamOfTwo(app, ALICE, 'claims');
    const since = trips.mark();
    const [job] = await app.core.requests.send(ALICE, {
      teamId: team.id,
      memberIds: [memberIds[0]],
      text: 'Instant answer',
      clientRequestId: 'r-claims',
    });
    if (job === undefined) throw new Error('no job');
    await waitFor(
      async () => (await app.store.findJobs([job.id]))[0]?.phase === JobPhase.COMPLETED,
      'the request completed',
    );
    await app.scheduler?.idle();
    const transactions = trips.transactions(since);
    expect(transactions.length).toBeGreaterThan(0);
    // Before: each pass claimed in a transaction of its own (BEGIN, this read, the held jobs, COMMIT).
    expect(transactions.filter((t) => t.some(lockingClaim))).toEqual([]);
  });

  it('leaves a live server’s job alone without a transaction', async () => {
    const { app, trips, db } = recorded();
    const job = await runningJob(app, 'live-other', 0);
    await asAdmin(db.url, async (admin) => {
      // Another live server holds it (its lease runs for an hour).
      await admin.query(
        `insert into server_leases (server_id, host, started_at, renewed_at, expires_at_ms) values ('srv_other', 'elsewhere', '', '', $1)`,
        [Date.now() + 3_600_000],
      );
      await admin.query(`update jobs set lease_server = 'srv_other' where id = $1`, [job.id]);
      const since = trips.mark();
      const claimed = await app.store.claimActiveJobs({ serverId: SERVER, nowMs: Date.now() });
      expect(claimed.held.map((held) => held.job.id)).not.toContain(job.id);
      expect(claimed.takenOver).toEqual([]);
      expect(trips.transactions(since).filter((t) => t.some(lockingClaim))).toEqual([]);
      // Handed back, it ends here.
      await admin.query(`update jobs set lease_server = $2 where id = $1`, [job.id, SERVER]);
    });
    await waitFor(async () => (await app.store.findJobs([job.id]))[0]?.phase === JobPhase.COMPLETED, 'completed');
  });

  it('takes over an active job whose holder is gone, through the claim’s transaction', async () => {
    const { app, trips, db } = recorded();
    const job = await runningJob(app, 'orphan', 1);
    // Its holder vanishes: the lease is handed to a server that never registered.
    await asAdmin(db.url, (admin) => admin.query(`update jobs set lease_server = 'srv_gone' where id = $1`, [job.id]));
    const database = app.database;
    if (database === null) throw new Error('no database');
    const since = trips.mark();
    app.scheduler?.nudge();
    await waitFor(async () => {
      const [row] = await database.db.selectFrom('jobs').select(['lease_server']).where('id', '=', job.id).execute();
      return row?.lease_server === SERVER;
    }, 'taken back by this server');
    expect(trips.transactions(since).filter((t) => t.some(lockingClaim)).length).toBeGreaterThan(0);
    expect(app.logger.entries.some((entry) => entry.message === 'took over jobs')).toBe(true);
    // Driven again by this server, the job still ends.
    await waitFor(async () => (await app.store.findJobs([job.id]))[0]?.phase === JobPhase.COMPLETED, 'completed');
  });
});
