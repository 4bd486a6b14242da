import { ACTIVE_PHASES, JobPhase, RuntimeError, TeamStatus } from '@agent-teams/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Harness, openHarness, removeTempDirs, waitFor, waitForPhases, wrapRuntime } from './scheduler-harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
afterAll(removeTempDirs);

describe('scheduler failure handling', () => {
  it('retries a runtime call that failed transiently with the same key until it succeeds', async () => {
    let failures = 0;
    h = await openHarness({
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          poll: async (args) => {
            if (failures < 2) {
              failures += 1;
              throw new RuntimeError('transient', 'HTTP 503 from the agent host');
            }
            return runtime.poll(args);
          },
        }),
    });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [job] = await h.send(team, members.slice(0, 1), 'Try again later');
    if (!job) throw new Error('no job');
    const [done] = await waitForPhases(h, [job.id], [JobPhase.COMPLETED]);
    expect(failures).toBe(2);
    expect(done?.result?.text).toBe('m0: Try again later');
  });

  it('treats a runtime call past the step bound as transient and retries it with the same key', async () => {
    const keys: string[] = [];
    let retried = () => {};
    const retry = new Promise<void>((resolve) => {
      retried = resolve;
    });
    h = await openHarness({
      scheduler: { stepTimeoutMs: 100 },
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          start: async (args) => {
            keys.push(args.runKey);
            // The first call hangs past the step bound until the retry has been made.
            if (keys.length === 1) await retry;
            else retried();
            return runtime.start(args);
          },
        }),
    });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [job] = await h.send(team, members.slice(0, 1), 'Slow host');
    if (!job) throw new Error('no job');
    const [done] = await waitForPhases(h, [job.id], [JobPhase.COMPLETED]);
    expect(done?.result?.text).toBe('m0: Slow host');
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys)).toEqual(new Set([job.id]));
    expect(h.logger.entries.some((e) => e.fields.jobId === job.id && String(e.fields.error).includes('100 ms'))).toBe(
      true,
    );
  });

  it('disconnects the team on an access error and keeps the job in its state and slot', async () => {
    h = await openHarness({
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          start: async () => {
            throw new RuntimeError('access', 'credentials revoked');
          },
        }),
    });
    const harness = h;
    const { team, members } = await harness.team(['researcher', 'reviewer']);
    const [job] = await harness.send(team, members.slice(0, 1), 'Needs access');
    if (!job) throw new Error('no job');
    await waitFor(
      async () => (await harness.store.findTeams([team.id]))[0]?.status === TeamStatus.DISCONNECTED,
      'disconnect',
    );
    const kept = await harness.job(job.id);
    expect(kept.phase).toBe(JobPhase.ADMITTING);
    expect(kept.result).toBeNull();
    expect((await harness.store.listActiveJobs()).map((active) => active.id)).toEqual([job.id]);
  });

  it('fails the job when the runtime rejects it', async () => {
    h = await openHarness({
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          start: async () => {
            throw new RuntimeError('rejected', 'HTTP 422 unknown thread');
          },
        }),
    });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [job] = await h.send(team, members.slice(0, 1), 'Rejected');
    if (!job) throw new Error('no job');
    const [failed] = await waitForPhases(h, [job.id], [JobPhase.FAILED]);
    expect(failed?.error).toContain('HTTP 422 unknown thread');
  });

  it('keeps completing another team while one team throws unexpected errors', async () => {
    let brokenTeam = '';
    h = await openHarness({
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          start: async (args) => {
            if (args.context.teamId === brokenTeam) throw new Error('socket hang up (bug)');
            return runtime.start(args);
          },
        }),
    });
    const harness = h;
    const broken = await harness.team(['researcher', 'reviewer']);
    brokenTeam = broken.team.id;
    const healthy = await harness.team(['writer', 'reviewer']);
    const [stuck] = await harness.send(broken.team, broken.members.slice(0, 1), 'Never starts');
    if (!stuck) throw new Error('no job');
    await waitFor(
      () =>
        harness.logger.entries.some(
          (e) => e.level === 'error' && e.fields.jobId === stuck.id && e.fields.teamId === brokenTeam,
        ),
      'an error logged with team and job id',
    );
    const [fine] = await harness.send(healthy.team, healthy.members.slice(0, 1), 'Still works');
    if (!fine) throw new Error('no job');
    const [done] = await waitForPhases(harness, [fine.id], [JobPhase.COMPLETED]);
    expect(done?.result?.text).toBe('m0: Still works');
    const kept = await harness.job(stuck.id);
    expect(ACTIVE_PHASES).toContain(kept.phase);
    expect(kept.result).toBeNull();
  });
});
