import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectEachRanOnce, jobsIn, phasesOf } from './cluster-checks.js';
import { createTeam, sendOk, teamJobs } from './cluster-client.js';
import { ClusterHarness, type LeaseFlags, TOKENS } from './cluster-harness.js';
import type { ServerProcess } from './server-process.js';

/** A short lease, so a paused server's jobs are reclaimed within seconds. */
const SHORT_LEASE: LeaseFlags = { leaseTtlMs: 3_000, heartbeatMs: 1_000 };
/** The promised bound: another server finishes a lost server's jobs within 30 s. */
const RECLAIM_LIMIT_MS = 30_000;
/** How long each scripted run sleeps: long enough to still be running after the takeover. */
const RUN_MS = 8_000;

let harness: ClusterHarness;

beforeAll(async () => {
  harness = await ClusterHarness.create('cluster_fencing');
});
afterAll(async () => harness?.dispose());
// Servers are killed before the next test, not after this one, so a failure printout still sees
// the paused server's database sessions and the locks they hold.
beforeEach(async ({ onTestFailed }) => {
  await harness.killAll();
  harness.printOnFailure(onTestFailed);
});

/**
 * Starts two servers, sends three sleeping requests through the first, and SIGSTOPs whichever
 * server holds them once they run.
 */
async function pauseTheHolder(key: string) {
  // Started one after the other, so the harness knows which lease id is whose.
  const a = await harness.start({ lease: SHORT_LEASE });
  const b = await harness.start({ lease: SHORT_LEASE });
  const team = await createTeam(a, TOKENS.alice, key, 3);
  const ids = await Promise.all(
    team.members.map((member, i) =>
      sendOk(a, TOKENS.alice, {
        teamId: team.id,
        memberId: member.id,
        text: `!sleep ${RUN_MS}\n!reply fenced ${i}`,
        clientRequestId: `${key}-${i}`,
      }),
    ),
  );
  await jobsIn(harness.observer, team.id, 3, 'RUNNING');
  const { server: paused } = await harness.holderOf([team.id]);
  paused.signal('SIGSTOP');
  // Paused while its runs were still going (it cannot finish them now).
  expect(await phasesOf(harness.observer, team.id)).toEqual(['RUNNING', 'RUNNING', 'RUNNING']);
  const other: ServerProcess = paused === a ? b : a;
  const expected = [0, 1, 2].map((i) => `slept ${RUN_MS} ms\nfenced ${i}`);
  return { team, ids, paused, other, expected };
}

describe('a paused server that lost its jobs to another server', () => {
  it('changes nothing when it wakes after the other server reclaimed and finished them', {
    timeout: 90_000,
  }, async () => {
    const { team, ids, paused, other, expected } = await pauseTheHolder('fence-after');
    const finished = await jobsIn(harness.observer, team.id, 3, 'COMPLETED', RECLAIM_LIMIT_MS);
    const resultOf = new Map(finished.map((job) => [job.id, job.result_text]));
    expect(ids.map((id) => resultOf.get(id))).toEqual(expected);
    const before = await harness.observer.snapshot([team.id]);

    paused.signal('SIGCONT');
    // Answering a query proves its overdue timers (the runs' sleeps, its step timers) have fired;
    // a graceful stop then waits for whatever writes they started.
    const seenByPaused = await teamJobs(paused, TOKENS.alice, team.id);
    expect(seenByPaused.map((job) => job.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    paused.signal('SIGTERM');
    await paused.exited();

    // Not one row it could have touched changed: jobs, shared record, conversations, runs, events.
    expect(await harness.observer.snapshot([team.id])).toEqual(before);
    const seenByOther = new Map((await teamJobs(other, TOKENS.alice, team.id)).map((j) => [j.id, j.result.text]));
    expect(ids.map((id) => seenByOther.get(id))).toEqual(expected);
    await expectEachRanOnce(harness.observer, other, TOKENS.alice, team.id, ids);
  });

  it('cannot finish a job twice when it wakes while the other server is still running it', {
    timeout: 90_000,
  }, async () => {
    const { team, ids, paused, other, expected } = await pauseTheHolder('fence-during');
    const pausedId = harness.leaseIdOf(paused);
    // The takeover: every job now names another holder (with a newer fence), and none finished.
    await vi.waitFor(
      async () => {
        const jobs = await harness.observer.jobs([team.id]);
        expect(jobs.map((job) => job.lease_server === pausedId)).toEqual([false, false, false]);
      },
      { timeout: RECLAIM_LIMIT_MS, interval: 20 },
    );
    // Both now believe they drive these runs; the paused one's sleeps are long overdue, so it
    // races to write their outcomes first. Its fence is stale: only the other's writes may land.
    paused.signal('SIGCONT');

    const finished = await jobsIn(harness.observer, team.id, 3, 'COMPLETED', RECLAIM_LIMIT_MS);
    const resultOf = new Map(finished.map((job) => [job.id, job.result_text]));
    expect(ids.map((id) => resultOf.get(id))).toEqual(expected);
    await expectEachRanOnce(harness.observer, other, TOKENS.alice, team.id, ids);
    // The woken server keeps serving, and sees the same outcome.
    const seenByPaused = new Map((await teamJobs(paused, TOKENS.alice, team.id)).map((j) => [j.id, j.result.text]));
    expect(ids.map((id) => seenByPaused.get(id))).toEqual(expected);
  });
});
