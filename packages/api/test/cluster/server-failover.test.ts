import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectEachRanOnce, jobsIn, phasesOf, tally } from './cluster-checks.js';
import { conversations, createTeam, sendOk } from './cluster-client.js';
import { ClusterHarness, type LeaseFlags, TOKENS } from './cluster-harness.js';

/** A short lease, so a dead server's jobs are reclaimed within seconds. */
const SHORT_LEASE: LeaseFlags = { leaseTtlMs: 3_000, heartbeatMs: 1_000 };
/** The promised bound: another server finishes a dead server's jobs within 30 s. */
const RECLAIM_LIMIT_MS = 30_000;
/** How long each scripted run sleeps: long enough to still be running when its holder dies. */
const RUN_MS = 8_000;

let harness: ClusterHarness;

beforeAll(async () => {
  harness = await ClusterHarness.create('cluster_failover');
});
afterAll(async () => harness?.dispose());
beforeEach(({ onTestFailed }) => harness.printOnFailure(onTestFailed));

describe('a server killed while it holds running jobs', () => {
  it('is replaced by the other server, which finishes every job once, with no handoff or receipt twice', {
    timeout: 90_000,
  }, async () => {
    // Started one after the other, so the harness knows which lease id is whose.
    const a = await harness.start({ lease: SHORT_LEASE });
    const b = await harness.start({ lease: SHORT_LEASE });
    const team = await createTeam(a, TOKENS.alice, 'failover-kill');
    // m0..m3 each hand off to m4..m7 at once, then keep sleeping: when the holder dies it drives
    // 8 runs (4 roots mid-sleep after their handoff, 4 handoffs mid-sleep). The roots' replay on
    // the survivor calls `send_member` again, which must not make a second handoff or receipt.
    const roots = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        sendOk(a, TOKENS.alice, {
          teamId: team.id,
          memberId: (team.members[i] as { id: string }).id,
          text: `!handoff m${i + 4} !sleep ${RUN_MS}\n!sleep ${RUN_MS}\n!reply root ${i}`,
          clientRequestId: `kill-${i}`,
        }),
      ),
    );
    await jobsIn(harness.observer, team.id, 8, 'RUNNING');
    // Normally the server the requests went through admitted them all; either way, kill the holder.
    const { server: victim } = await harness.holderOf([team.id]);
    const survivor = victim === a ? b : a;
    victim.signal('SIGKILL');
    expect(await victim.exited()).toEqual({ code: null, signal: 'SIGKILL' });
    // Still mid-run when the holder died, or the test would prove nothing.
    expect(await phasesOf(harness.observer, team.id)).toEqual(Array.from({ length: 8 }, () => 'RUNNING'));

    // 4 roots + 4 handoffs + 4 receipts back to m0..m3, all finished by the survivor.
    const jobs = await jobsIn(harness.observer, team.id, 12, 'COMPLETED', RECLAIM_LIMIT_MS);
    const requests = jobs.filter((job) => job.kind === 'REQUEST');
    const handoffs = requests.filter((job) => job.parent_id !== null);
    const receipts = jobs.filter((job) => job.kind === 'RECEIPT');
    expect(tally(requests.filter((job) => job.parent_id === null).map((job) => job.id))).toEqual(tally(roots));
    expect(tally(handoffs.map((job) => job.parent_id))).toEqual(tally(roots));
    expect(tally(receipts.map((job) => job.parent_id))).toEqual(tally(handoffs.map((job) => job.id)));
    const resultOf = new Map(jobs.map((job) => [job.id, job.result_text]));
    expect(roots.map((id) => resultOf.get(id))).toEqual(
      [0, 1, 2, 3].map((i) => `handed off to m${i + 4}\nslept ${RUN_MS} ms\nroot ${i}`),
    );

    await expectEachRanOnce(
      harness.observer,
      survivor,
      TOKENS.alice,
      team.id,
      jobs.map((job) => job.id),
    );
    // The replayed roots called send_member again; the conversation keeps the call once.
    const calls = [...(await conversations(survivor, TOKENS.alice, team.id)).values()]
      .flat()
      .filter((m) => m.role === 'ASSISTANT' && m.toolName === 'send_member');
    expect(tally(calls.map((m) => m.job?.id ?? null))).toEqual(tally(roots));
  });
});
