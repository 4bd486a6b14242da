import { type JobId, JobPhase, TeamEventKind } from '@agent-teams/core';
import { afterAll, describe, expect, it } from 'vitest';
import { ACK_GRACE_MS } from '../../src/scheduler/ack-grace.js';
import {
  closeHarnesses,
  type Harness,
  OWNER,
  openHarness,
  removeTempDirs,
  waitFor,
  wrapRuntime,
} from './scheduler-harness.js';

afterAll(async () => {
  await closeHarnesses();
  removeTempDirs();
});

/** The JOB_CHANGED events committed for `jobId`, in order. */
async function jobChanges(h: Harness, teamId: string, jobId: JobId): Promise<number> {
  const events = await h.core.events.read(OWNER, teamId, 0, 1_000);
  return events.filter((event) => event.kind === TeamEventKind.JOB_CHANGED && event.jobId === jobId).length;
}

describe('acknowledging a started run', () => {
  it('commits a turn that ends within the grace once, its start acknowledged with its outcome', async () => {
    // A grace far longer than the turn, so a stalled machine cannot turn it into two commits;
    // the same turn with no grace shows what it saves.
    const changes = async (ackGraceMs: number) => {
      const h = await openHarness({ scheduler: { ackGraceMs } });
      const { team, members } = await h.team(['researcher', 'reviewer']);
      // The run settles after it started (not at the first poll).
      const [job] = await h.send(team, members.slice(0, 1), '!sleep 50');
      if (!job) throw new Error('no job');
      await waitFor(async () => (await h.job(job.id)).phase === JobPhase.COMPLETED, 'completed');
      await h.scheduler.idle();
      expect((await h.job(job.id)).runId).not.toBeNull();
      return jobChanges(h, team.id, job.id);
    };
    // Enqueued and admitted in one commit (decision 0223), then completed: no separate RUNNING commit.
    expect(await changes(5_000)).toBe(2);
    expect(await changes(0)).toBe(3);
  });

  it('leaves no step waiting for the grace of a turn that ended within it', async () => {
    // A grace far longer than the test's own timeout: only a dropped timer lets idle() return.
    const h = await openHarness({ scheduler: { ackGraceMs: 600_000 } });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [job] = await h.send(team, members.slice(0, 1), '!sleep 50');
    if (!job) throw new Error('no job');
    await waitFor(async () => (await h.job(job.id)).phase === JobPhase.COMPLETED, 'completed');
    await h.scheduler.idle();
    expect(await jobChanges(h, team.id, job.id)).toBe(2);
  });

  it('has the runtime write a run (persist) before it records the run on the job', async () => {
    const persisted: { runId: string; phase: JobPhase | undefined; recorded: string | null | undefined }[] = [];
    let store: Harness['store'] | null = null;
    const h = await openHarness({
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          persist: async ({ runId, context }) => {
            const [job] = (await store?.findJobs([context.jobId])) ?? [];
            persisted.push({ runId, phase: job?.phase, recorded: job?.runId });
          },
        }),
    });
    store = h.store;
    const { team, members } = await h.team(['researcher', 'reviewer']);
    // One turn acknowledged after the grace while it runs, one ending within it.
    const [long, quick] = await h
      .send(team, members, `!sleep ${ACK_GRACE_MS * 10}`)
      .then(async (first) => [first[0], (await h.send(team, members.slice(0, 1), 'quick'))[0]]);
    if (!long || !quick) throw new Error('no job');
    for (const job of [long, quick]) {
      await waitFor(async () => (await h.job(job.id)).phase === JobPhase.COMPLETED, 'completed', 15_000);
    }
    await h.scheduler.idle();
    for (const job of [long, quick]) {
      const { runId } = await h.job(job.id);
      // Asked before the job named the run, while it was still unacknowledged.
      expect(persisted.filter((call) => call.runId === runId)).toContainEqual({
        runId,
        phase: JobPhase.ADMITTING,
        recorded: null,
      });
    }
  });

  it('acknowledges a longer turn after the grace, while it still runs', async () => {
    const h = await openHarness();
    const { team, members } = await h.team(['researcher', 'reviewer']);
    // The default grace: a turn longer than it shows RUNNING before it ends.
    const [job] = await h.send(team, members.slice(0, 1), `!sleep ${ACK_GRACE_MS * 25}`);
    if (!job) throw new Error('no job');
    const running = await waitFor(async () => {
      const now = await h.job(job.id);
      return now.phase === JobPhase.RUNNING ? now : null;
    }, 'running');
    expect(running.runId).not.toBeNull();
    await waitFor(async () => (await h.job(job.id)).phase === JobPhase.COMPLETED, 'completed', 15_000);
    await h.scheduler.idle();
    // Enqueued and admitted, acknowledged RUNNING, completed.
    expect(await jobChanges(h, team.id, job.id)).toBe(3);
  });
});
