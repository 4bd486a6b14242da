import { ACTIVE_PHASES, asOwnerId, JobPhase } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { sendAsOwner } from './owner-requests.js';
import { type Harness, harnessPerTest, openHarness, waitFor, waitForPhases } from './scheduler-harness.js';

const ALICE = asOwnerId('alice');
const BOB = asOwnerId('bob');
/** A turn far longer than any test: it holds its slot until the application closes. */
const LONG_TURN = '!sleep 600000';

let h: Harness;
harnessPerTest((opened) => {
  h = opened;
});

/** Creates a READY team of `owner` with `size` researcher members and sends each member `text`. */

/** Active jobs per owner, now. */
async function activeByOwner(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const job of await h.store.listActiveJobs()) {
    if (ACTIVE_PHASES.includes(job.phase)) counts.set(job.owner, (counts.get(job.owner) ?? 0) + 1);
  }
  return counts;
}

describe('fair admission on SQLite', () => {
  it("starts another owner's first request at once while one owner's 8 long turns wait for slots (default: 2 kept)", async () => {
    const long = await sendAsOwner(h.core, ALICE, 8, LONG_TURN, 'alice');
    await waitFor(async () => (await activeByOwner()).get(ALICE) === 6, 'six of alice’s turns running');
    const bobs = await sendAsOwner(h.core, BOB, 2, '!reply hello', 'bob');
    const done = await waitForPhases(
      h,
      bobs.map((j) => j.id),
      [JobPhase.COMPLETED],
    );
    expect(done.map((j) => j.result?.text)).toEqual(['hello', 'hello']);
    // Alice's long turns are still running, two still queued: nobody had to finish for Bob.
    const alice = await h.store.findJobs(long.map((j) => j.id));
    expect(alice.filter((j) => ACTIVE_PHASES.includes(j.phase))).toHaveLength(6);
    expect(alice.filter((j) => j.phase === JobPhase.QUEUED)).toHaveLength(2);
  });

  it('holds an owner at its maxActive, keeps its jobs QUEUED, and lets others use the slots', async () => {
    await h.close();
    h = await openHarness({
      scheduler: {
        admission: {
          activeJobs: 4,
          reservedForOthers: 0,
          defaultOwner: { maxActive: null, weight: 1 },
          owners: new Map([['alice', { maxActive: 2, weight: 1 }]]),
        },
      },
    });
    const long = await sendAsOwner(h.core, ALICE, 6, LONG_TURN, 'alice-cap');
    await waitFor(async () => (await activeByOwner()).get(ALICE) === 2, 'two of alice’s turns running');
    const bobs = await sendAsOwner(h.core, BOB, 3, '!sleep 50\n!reply ok', 'bob-cap');
    const done = await waitForPhases(
      h,
      bobs.map((j) => j.id),
      [JobPhase.COMPLETED],
    );
    expect(done).toHaveLength(3);
    const alice = await h.store.findJobs(long.map((j) => j.id));
    expect(alice.filter((j) => ACTIVE_PHASES.includes(j.phase))).toHaveLength(2);
    expect(alice.filter((j) => j.phase === JobPhase.QUEUED)).toHaveLength(4);
  });
});
