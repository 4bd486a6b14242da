// PostgreSQL: an admission sends the locked read of every job it freezes before the first answer
// (decision 0258). When one of those reads fails on the server (here: its team's lock held
// elsewhere past `lock_timeout`), the transaction is aborted, and the failure must name that
// job, not the job frozen before it, whose writes then fail only as aborted (25P02).
import { asOwnerId, JobPhase, type MemberId, type Team } from '@agent-teams/core';
import { type MemoryLogger, StaticCatalog } from '@agent-teams/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import type { App } from '../../src/app/create-app.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { teamOfTwo } from '../support/recorded-postgres-app.js';
import { openTestApp } from '../support/test-app.js';
import { TEST_AGENTS, waitFor } from './scheduler-harness.js';

const ALICE = asOwnerId('alice');
/** The log line of a job set aside (`AdmissionPass`). */
const SET_ASIDE = 'admitting a job failed; it is set aside and retried, the others go on';

let db: FreshPostgres;
let app: App & { readonly logger: MemoryLogger };

beforeAll(async () => {
  db = await createFreshPostgres('agent_teams_locks_ahead');
  // Every statement of the application gives up on a lock after 300 ms (55P03).
  const url = new URL(db.url);
  url.searchParams.set('options', '-c lock_timeout=300');
  app = await openTestApp({
    database: await openDatabase(url.toString(), { poolSize: 4 }),
    ids: createRandomIds(),
    catalog: new StaticCatalog(TEST_AGENTS),
    lease: { serverId: 'srv_locks_ahead' },
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('an admission whose second locked read fails', () => {
  it('names the job whose read failed, and admits the one before it', async () => {
    const first = await teamOfTwo(app, ALICE, 'first');
    const held = await teamOfTwo(app, ALICE, 'held');
    const planning = new pg.Client({ connectionString: db.url });
    const teamLock = new pg.Client({ connectionString: db.url });
    await planning.connect();
    await teamLock.connect();
    try {
      // The planning lock held: both sends commit without their rides, so one pass admits both,
      // the older first.
      await planning.query('BEGIN');
      await planning.query('select round_json from scheduler_state where id = 1 for update');
      const send = (to: { team: Team; memberIds: readonly MemberId[] }, key: string) =>
        app.core.requests.send(ALICE, {
          teamId: to.team.id,
          memberIds: to.memberIds.slice(0, 1),
          text: 'Hi',
          clientRequestId: key,
        });
      const [firstJob] = await send(first, 'r-first');
      const [heldJob] = await send(held, 'r-held');
      if (firstJob === undefined || heldJob === undefined) throw new Error('nothing enqueued');
      // The second team's row held elsewhere, then the planning lock let go: the pass reads both.
      await teamLock.query('BEGIN');
      await teamLock.query('select id from teams where id = $1 for update', [held.team.id]);
      await planning.query('COMMIT');
      await waitFor(
        async () => (await app.store.findJobs([firstJob.id]))[0]?.phase === JobPhase.COMPLETED,
        'the first job admitted and done while the other team is held',
      );
      const setAside = app.logger.entries.filter((entry) => entry.message === SET_ASIDE);
      expect(setAside.length).toBeGreaterThanOrEqual(1);
      // Only ever the job whose read failed, for its lock, never the one frozen before it.
      for (const entry of setAside) {
        expect(entry.fields).toMatchObject({ jobId: heldJob.id, teamId: held.team.id });
        expect(String(entry.fields?.error)).not.toMatch(/current transaction is aborted/);
      }
      expect((await app.store.findJobs([heldJob.id]))[0]?.phase).toBe(JobPhase.QUEUED);
      await teamLock.query('COMMIT');
      await waitFor(
        async () => (await app.store.findJobs([heldJob.id]))[0]?.phase === JobPhase.COMPLETED,
        'the held job admitted once its team is free',
        40_000,
      );
    } finally {
      await planning.end();
      await teamLock.end();
    }
  }, 60_000);
});
