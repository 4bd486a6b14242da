import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { logLinesOf, metricOf } from '../support/server-signals.js';
import { jobsIn, phasesOf } from './cluster-checks.js';
import { createTeam, sendOk } from './cluster-client.js';
import { ClusterHarness, type LeaseFlags, TOKENS } from './cluster-harness.js';

/** A short lease, so the dead server's job is claimed within seconds. */
const SHORT_LEASE: LeaseFlags = { leaseTtlMs: 3_000, heartbeatMs: 1_000 };
/** The promised bound: another server finishes a dead server's jobs within 30 s. */
const RECLAIM_LIMIT_MS = 30_000;
/** How long the scripted run sleeps: still running when its holder dies. */
const RUN_MS = 6_000;
const TAKEOVER = 'took over jobs';
const TAKEN_OVER = 'agent_teams_jobs_taken_over_total';

let harness: ClusterHarness;

beforeAll(async () => {
  harness = await ClusterHarness.create('cluster_takeover_log');
});
afterAll(async () => harness?.dispose());
beforeEach(({ onTestFailed }) => harness.printOnFailure(onTestFailed));

describe('a server claiming the job of a server whose lease expired', () => {
  it('logs one takeover line naming the job and the dead server, and none on the passes that took nothing', {
    timeout: 90_000,
  }, async () => {
    // Started one after the other, so the harness knows which lease id is whose.
    const a = await harness.start({ lease: SHORT_LEASE });
    const b = await harness.start({ lease: SHORT_LEASE });
    const team = await createTeam(a, TOKENS.alice, 'takeover-log', 2);
    const jobId = await sendOk(a, TOKENS.alice, {
      teamId: team.id,
      memberId: (team.members[0] as { id: string }).id,
      text: `!sleep ${RUN_MS}\n!reply taken over`,
      clientRequestId: 'takeover-log-1',
    });
    await jobsIn(harness.observer, team.id, 1, 'RUNNING');
    const { server: victim } = await harness.holderOf([team.id]);
    const survivor = victim === a ? b : a;
    const victimId = harness.leaseIdOf(victim);
    // Both servers ran claiming passes while their peer was alive: they took nothing over.
    expect(logLinesOf(survivor.output(), TAKEOVER)).toEqual([]);
    expect(await metricOf(survivor.url, TAKEN_OVER)).toBe(0);
    victim.signal('SIGKILL');
    await victim.exited();
    // Still running when its holder died, or the test would prove nothing.
    expect(await phasesOf(harness.observer, team.id)).toEqual(['RUNNING']);

    const [line] = await vi.waitFor(
      () => {
        const lines = logLinesOf(survivor.output(), TAKEOVER);
        expect(lines).toHaveLength(1);
        return lines;
      },
      { timeout: RECLAIM_LIMIT_MS, interval: 50 },
    );
    expect(line).toMatchObject({ level: 'info', count: 1, fromServers: [victimId], jobIds: [jobId] });
    expect(victimId).toMatch(/^srv_/);
    await jobsIn(harness.observer, team.id, 1, 'COMPLETED', RECLAIM_LIMIT_MS);
    // The passes after the takeover (the job's steps and end) took nothing more.
    expect(logLinesOf(survivor.output(), TAKEOVER)).toHaveLength(1);
    expect(await metricOf(survivor.url, TAKEN_OVER)).toBe(1);
    expect(logLinesOf(victim.output(), TAKEOVER)).toEqual([]);
  });
});
