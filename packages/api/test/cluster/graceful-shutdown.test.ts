import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTeam, sendOk } from './cluster-client.js';
import { ClusterHarness, type LeaseFlags, TOKENS } from './cluster-harness.js';

/** Ten minutes: far longer than the test, so only a released lease lets the other server in. */
const LONG_LEASE: LeaseFlags = { leaseTtlMs: 600_000, heartbeatMs: 5_000 };

let harness: ClusterHarness;

beforeAll(async () => {
  harness = await ClusterHarness.create('cluster_shutdown');
});
afterAll(async () => harness?.dispose());
beforeEach(({ onTestFailed }) => harness.printOnFailure(onTestFailed));

describe('a server stopped with SIGTERM while it holds running jobs', () => {
  it('exits 0 and releases its leases, so the other server finishes its jobs long before they expire', {
    timeout: 90_000,
  }, async () => {
    // Started one after the other, so the harness knows which lease id is whose.
    const a = await harness.start({ lease: LONG_LEASE });
    await harness.start({ lease: LONG_LEASE });
    const team = await createTeam(a, TOKENS.alice, 'graceful', 3);
    const ids = await Promise.all(
      team.members.map((member, i) =>
        sendOk(a, TOKENS.alice, {
          teamId: team.id,
          memberId: member.id,
          text: `!sleep 6000\n!reply handed over ${i}`,
          clientRequestId: `graceful-${i}`,
        }),
      ),
    );
    const phases = async () => (await harness.observer.jobs([team.id])).map((job) => job.phase);
    await vi.waitFor(async () => expect(await phases()).toEqual(['RUNNING', 'RUNNING', 'RUNNING']), {
      timeout: 20_000,
      interval: 50,
    });
    // Normally the server the requests went through admitted them all; either way, stop the holder.
    const { server: holder } = await harness.holderOf([team.id]);
    // Its runs are still going when it is told to stop, or the test would prove nothing.
    expect(await phases()).toEqual(['RUNNING', 'RUNNING', 'RUNNING']);
    holder.signal('SIGTERM');
    expect(await holder.exited()).toEqual({ code: 0, signal: null });

    // Well inside the 10-minute TTL: only the released leases can explain the takeover.
    const jobs = await vi.waitFor(
      async () => {
        const rows = await harness.observer.jobs([team.id]);
        expect(rows.map((job) => job.phase)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
        return rows;
      },
      { timeout: 30_000, interval: 100 },
    );
    const resultOf = new Map(jobs.map((job) => [job.id, job.result_text]));
    expect(ids.map((id) => resultOf.get(id))).toEqual([0, 1, 2].map((i) => `slept 6000 ms\nhanded over ${i}`));
    expect([...(await harness.observer.resultRecordsPerJob([team.id])).values()]).toEqual([1, 1, 1]);
    expect([...(await harness.observer.runsPerJob(ids)).values()]).toEqual([1, 1, 1]);
  });
});
