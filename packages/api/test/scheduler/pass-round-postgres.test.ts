// PostgreSQL: a pass that changes the planning round stores it without waiting for the answer
// (decision 0258): the freezes' locked reads follow the update on the wire, and the COMMIT the
// writes. One slot, so a pass admits one of two owners' jobs and the round keeps the other.
import { asOwnerId, DEFAULT_ADMISSION_POLICY, JobPhase } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { tripsOf } from '../support/pg-round-trips.js';
import { holdPlanningLock, recordedPostgresAppPerFile, teamOfTwo } from '../support/recorded-postgres-app.js';
import { waitFor } from './scheduler-harness.js';

const ALICE = asOwnerId('alice');
const BOB = asOwnerId('bob');

const recorded = recordedPostgresAppPerFile('agent_teams_pass_round', 'srv_pass_round', {
  scheduler: { admission: { ...DEFAULT_ADMISSION_POLICY, activeJobs: 1, reservedForOthers: 0 } },
});

describe('a pass that changes the round, on PostgreSQL', () => {
  it('sends the round’s update and the locked read in one round trip: 3 in all', async () => {
    const { app, trips, db } = recorded();
    const mine = await teamOfTwo(app, ALICE, 'round-alice');
    const theirs = await teamOfTwo(app, BOB, 'round-bob');
    const locker = await holdPlanningLock(db.url);
    try {
      const since = trips.mark();
      const jobs = [
        ...(await app.core.requests.send(ALICE, {
          teamId: mine.team.id,
          memberIds: [mine.memberIds[0]],
          text: 'Instant answer',
          clientRequestId: 'r-round-alice',
        })),
        ...(await app.core.requests.send(BOB, {
          teamId: theirs.team.id,
          memberIds: [theirs.memberIds[0]],
          text: 'Instant answer',
          clientRequestId: 'r-round-bob',
        })),
      ];
      await locker.query('COMMIT');
      await waitFor(
        async () => (await app.store.findJobs(jobs.map((job) => job.id))).every((j) => j.phase === JobPhase.COMPLETED),
        'both done, one after the other',
      );
      const stores = (s: { text: string }) => /^update "scheduler_state" set "round_json"/.test(s.text);
      const locks = (s: { text: string }) => /^with "locked_team" as materialized/.test(s.text);
      const pass = trips.transactions(since).find((t) => t.some(stores) && t.some(locks));
      if (pass === undefined) throw new Error('no pass storing its round recorded');
      expect(pass.find(locks)?.trip).toBe(pass.find(stores)?.trip);
      // The planning lock with its reads; the round and the locked read; the writes and the COMMIT.
      expect(tripsOf(pass)).toBe(3);
    } finally {
      await locker.end();
    }
  });
});
