import { asOwnerId, type JobId, JobPhase } from '@agent-teams/core';
import { StaticCatalog } from '@agent-teams/testkit';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { openTestApp } from '../support/test-app.js';
import { countJobReads, TEST_AGENTS, waitFor } from './scheduler-harness.js';

// Decision 0240: other servers may write the jobs of a PostgreSQL database, so a step there reads
// its job; only a server alone on its SQLite file starts from the job as its commits stored it.

const ALICE = asOwnerId('alice');
let db: FreshPostgres | undefined;

afterAll(async () => {
  await db?.drop();
});

describe('a job step on PostgreSQL', () => {
  it('reads its job back after the run settles', async () => {
    db = await createFreshPostgres('agent_teams_known_jobs');
    const app = await openTestApp({
      database: await openDatabase(db.url, { poolSize: 4 }),
      ids: createRandomIds(),
      catalog: new StaticCatalog(TEST_AGENTS),
      scheduler: { ackGraceMs: 60_000 },
    });
    try {
      const members = [0, 1].map((i) => ({ name: `m${i}`, agentId: 'researcher' }));
      const team = await app.core.teams.create(ALICE, { clientRequestId: 't', name: 'T', goal: 'Test', members });
      const [first] = await app.core.teams.members([team.id]);
      if (first === undefined) throw new Error('no member');
      const watched: JobId[] = [];
      const counter = countJobReads(app.store, () => watched);
      const [job] = await app.core.requests.send(ALICE, {
        teamId: team.id,
        memberIds: [first.id],
        text: '!sleep 50',
        clientRequestId: 'r',
      });
      if (job === undefined) throw new Error('no job');
      watched.push(job.id);
      // Waits on the table itself: a read through the store would count as the step's.
      const phase = () =>
        app.database?.db.selectFrom('jobs').select('phase').where('id', '=', job.id).executeTakeFirst();
      await waitFor(async () => (await phase())?.phase === JobPhase.COMPLETED, 'completed');
      const reads = counter.reads();
      vi.restoreAllMocks();
      // The step the settled notice asked for (its start acknowledged with its outcome) read it.
      expect(reads).toBeGreaterThanOrEqual(1);
    } finally {
      await app.close();
    }
  });
});
