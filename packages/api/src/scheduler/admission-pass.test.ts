import {
  type AdmissionCandidate,
  type AdmitArgs,
  type AdmittedJob,
  EMPTY_ROUND,
  JobPhase,
  type TeamEvent,
  TeamEventKind,
} from '@agent-teams/core';
import { MemoryLogger, SequentialIds, StaticCatalog } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import { AdmissionPass, type AdmissionPassDeps, PAST_DEADLINE_RETRY_MS } from './admission-pass.js';
import type { WakeTimer } from './wake-timer.js';

/** An admission pass over a store whose waits read answers `deadline()`; counts the reads. */
function pass(deadline: () => Promise<string | null> | string | null, exclusive = false) {
  const clock = { nowMs: () => Date.now() };
  const reads = { count: 0, wakes: [] as number[] };
  const admission = new AdmissionPass({
    store: {
      admit: async () => [],
      nextWaitDeadline: async () => {
        reads.count += 1;
        return deadline();
      },
    } as unknown as AdmissionPassDeps['store'],
    catalog: new StaticCatalog(),
    runtimes: { get: () => null },
    clock,
    ids: new SequentialIds(),
    logger: new MemoryLogger(),
    serverId: 'server-1',
    timer: { wakeAt: (atMs: number) => reads.wakes.push(atMs) } as unknown as WakeTimer,
    wake: () => {},
    exclusive,
  });
  return { admission, reads };
}

describe('AdmissionPass waiting', () => {
  it('counts a wait that a step just began until the next read of the waits says otherwise', async () => {
    const { admission } = pass(() => null);
    expect(admission.waiting).toBe(false);
    admission.waitBegan();
    expect(admission.waiting).toBe(true);
    await admission.followWaits();
    expect(admission.waiting).toBe(false);
  });

  it('keeps counting it while the waits read says one remains', async () => {
    const { admission } = pass(() => new Date(Date.now() + 60_000).toISOString());
    admission.waitBegan();
    await admission.followWaits();
    expect(admission.waiting).toBe(true);
  });
});

describe('AdmissionPass waits read on an exclusive server', () => {
  it('reads the waits again only once a wait began, after a read that found none', async () => {
    const { admission, reads } = pass(() => null, true);
    await admission.followWaits();
    await admission.followWaits();
    await admission.followWaits();
    expect(reads.count).toBe(1);
    admission.waitBegan();
    await admission.followWaits();
    expect(reads.count).toBe(2);
    await admission.followWaits();
    expect(reads.count).toBe(2);
  });

  it('keeps reading while a read finds a wait', async () => {
    const { admission, reads } = pass(() => new Date(Date.now() + 60_000).toISOString(), true);
    await admission.followWaits();
    await admission.followWaits();
    expect(reads.count).toBe(2);
  });

  it('keeps reading on a server that shares its database', async () => {
    const { admission, reads } = pass(() => null, false);
    await admission.followWaits();
    await admission.followWaits();
    expect(reads.count).toBe(2);
  });

  it('does not trust a read that a beginning wait overtook', async () => {
    let answer: (deadline: string | null) => void = () => {};
    const { admission, reads } = pass(() => new Promise((resolve) => (answer = resolve)), true);
    const following = admission.followWaits();
    // The step's commit parks a job after the read ran but before its answer arrived.
    admission.waitBegan();
    answer(null);
    await following;
    expect(admission.waiting).toBe(true);
    const again = admission.followWaits();
    answer(null);
    await again;
    expect(reads.count).toBe(2);
  });
});

describe('AdmissionPass wait deadline timer', () => {
  it('wakes at a deadline at its own time: later, within the next second, or passed since the last admission', async () => {
    for (const offset of [60_000, 500, -5_000]) {
      const at = Date.now() + offset;
      const { admission, reads } = pass(() => new Date(at).toISOString());
      await admission.followWaits();
      expect(reads.wakes).toEqual([at]);
    }
  });

  it('looks again a moment later, not at once, at a deadline its admission saw pass and left waiting', async () => {
    const at = Date.now() - 5_000;
    const { admission, reads } = pass(() => new Date(at).toISOString());
    await admission.admit();
    const before = Date.now();
    await admission.followWaits();
    expect(reads.wakes).toHaveLength(1);
    expect(reads.wakes[0]).toBeGreaterThanOrEqual(before + PAST_DEADLINE_RETRY_MS);
    expect(reads.wakes[0]).toBeLessThanOrEqual(Date.now() + PAST_DEADLINE_RETRY_MS);
  });

  it('wakes at its own time a deadline that passed after its admission planned', async () => {
    let at = 0;
    const { admission, reads } = pass(() => new Date(at).toISOString());
    await admission.admit();
    at = Date.now() + 1;
    await admission.followWaits();
    expect(reads.wakes).toEqual([at]);
  });
});

describe('AdmissionPass riding an enqueue (decision 0223)', () => {
  const job = (id: string) => ({ job: { id, phase: JobPhase.ADMITTING }, lease: { serverId: 'server-1', fence: 1 } });
  const changed = (jobId: string) => ({ kind: TeamEventKind.JOB_CHANGED, jobId }) as unknown as TeamEvent;
  const plan = (args: AdmitArgs, candidates: number) =>
    args.plan({
      active: 0,
      activeByOwner: new Map(),
      capacity: 8,
      round: EMPTY_ROUND,
      candidates: Array.from(
        { length: candidates },
        (_, i) =>
          ({
            jobId: `job_${i}`,
            owner: 'alice',
            teamId: 'team_1',
            conversationId: `conv_${i}`,
            seq: i + 1,
          }) as unknown as AdmissionCandidate,
      ),
    });

  it('rides on an exclusive server and on a shared one (decision 0229), only while it drives fewer jobs than there are slots', async () => {
    const now = new Date().toISOString();
    expect(await pass(() => null, false).admission.prepareRide(now, 0)).not.toBeNull();
    expect(await pass(() => null, false).admission.prepareRide(now, 8)).toBeNull();
    expect(await pass(() => null, true).admission.prepareRide(now, 7)).not.toBeNull();
    expect(await pass(() => null, true).admission.prepareRide(now, 8)).toBeNull();
    expect(await pass(() => null, true).admission.prepareRide(now, 9)).toBeNull();
  });

  it('settles the commit it rode when it admitted every candidate, and only during its publication', async () => {
    const { admission } = pass(() => null, true);
    const ride = await admission.prepareRide(new Date().toISOString(), 0);
    if (ride === null) throw new Error('no ride');
    plan(ride.args, 1);
    ride.committed({ admitted: [job('job_a')] as unknown as AdmittedJob[], error: null, skipped: false });
    expect(admission.hear([changed('job_a')])).toBe(true);
    // Another job's change (a receipt, a follow-up) may add work.
    expect(admission.hear([changed('job_b')])).toBe(false);
    ride.published();
    expect(admission.hear([changed('job_a')])).toBe(false);
  });

  it('asks for a pass when a candidate was left waiting', async () => {
    const { admission } = pass(() => null, true);
    const ride = await admission.prepareRide(new Date().toISOString(), 0);
    if (ride === null) throw new Error('no ride');
    plan(ride.args, 2);
    ride.committed({ admitted: [job('job_a')] as unknown as AdmittedJob[], error: null, skipped: false });
    expect(admission.hear([changed('job_a')])).toBe(false);
  });

  it('after a ride skipped for a busy planning lock: no backoff, and the commit it rode asks for a pass', async () => {
    const { admission, reads } = pass(() => null, false);
    const ride = await admission.prepareRide(new Date().toISOString(), 0);
    if (ride === null) throw new Error('no ride');
    plan(ride.args, 1);
    ride.committed({ admitted: [], error: null, skipped: true });
    expect(admission.hear([changed('job_0')])).toBe(false);
    ride.published();
    expect(reads.wakes).toEqual([]);
    expect(await admission.prepareRide(new Date().toISOString(), 0)).not.toBeNull();
  });

  it('backs off after a failed ride: no ride and no pass admission until the retry is due', async () => {
    const { admission, reads } = pass(() => null, true);
    const ride = await admission.prepareRide(new Date().toISOString(), 0);
    if (ride === null) throw new Error('no ride');
    ride.committed({ admitted: [], error: new Error('refused'), skipped: false });
    expect(reads.wakes).toHaveLength(1);
    expect(await admission.prepareRide(new Date().toISOString(), 0)).toBeNull();
    expect(await admission.admit(true)).toEqual([]);
  });

  it('never fails the request when the catalog does: no ride, the error logged, admission backing off', async () => {
    const logger = new MemoryLogger();
    const wakes: number[] = [];
    const admission = new AdmissionPass({
      store: { admit: async () => [] } as unknown as AdmissionPassDeps['store'],
      catalog: { list: () => Promise.reject(new Error('catalog down')), get: async () => null },
      runtimes: { get: () => null },
      clock: { nowMs: () => Date.now() },
      ids: new SequentialIds(),
      logger,
      serverId: 'server-1',
      timer: { wakeAt: (atMs: number) => wakes.push(atMs) } as unknown as WakeTimer,
      wake: () => {},
      exclusive: true,
    });
    expect(await admission.prepareRide(new Date().toISOString(), 0)).toBeNull();
    expect(wakes).toHaveLength(1);
    expect(logger.entries).toContainEqual(expect.objectContaining({ level: 'error' }));
  });
});
