// Kept apart from scheduler-model-world.ts (300-line rule): what World.check asserts after every step of the model.
import { isTerminal, type Job, type JobId, JobPhase, Limits } from '@agent-teams/core';
import { REACHABLE_PHASES } from '@agent-teams/testkit';
import { expect } from 'vitest';
import type { World } from './scheduler-model-world.js';

/**
 * The scheduling invariants over the world's store and runtime: every request kept, at most
 * `Limits.activeJobs` active, phases only moving along reachable edges, one job at a time owning a
 * conversation, no team counting a receipt, and each job's runs consistent with its phase.
 */
export async function checkInvariants(world: World): Promise<void> {
  const ids = [...world.seen.keys()];
  const jobs = await world.store.findJobs(ids);
  expect(jobs.length).toBe(ids.length);
  const active = await world.store.listActiveJobs();
  expect(active.length).toBeLessThanOrEqual(Limits.activeJobs);
  const owners = new Map<string, JobId>();
  for (const job of jobs) {
    const before = world.seen.get(job.id) as JobPhase;
    expect(REACHABLE_PHASES.get(before)?.has(job.phase), `${job.id}: ${before} -> ${job.phase}`).toBe(true);
    world.seen.set(job.id, job.phase);
    checkRuns(world, job);
    if (!isTerminal(job.phase) && job.phase !== JobPhase.QUEUED) {
      // One job at a time owns a conversation (admitted, waiting or answered).
      expect(owners.get(job.conversationId)).toBeUndefined();
      owners.set(job.conversationId, job.id);
    }
  }
  expect(
    (await Promise.all(world.teams.map(({ team }) => world.store.countJobs(team.id)))).every((c) => c.receipts === 0),
  ).toBe(true);
}

/** A job's runs: none started twice, and a completed or waiting job matches its run. */
function checkRuns(world: World, job: Job): void {
  const runs = world.runtime.runsOf(job.id);
  // No turn started twice: one run for the request, one per accepted answer at most.
  expect(runs.length).toBeLessThanOrEqual(1 + (world.answers.get(job.id)?.size ?? 0));
  expect(new Set(runs.map((r) => r.runKey)).size).toBe(runs.length);
  const run = job.runId === null ? undefined : world.runtime.byId(job.runId);
  if (job.phase === JobPhase.COMPLETED) {
    // Nothing is reported complete that did not complete.
    expect(run?.state).toEqual({ state: 'completed', answer: job.result?.text });
  }
  if (job.phase === JobPhase.WAITING_INPUT) {
    expect(run?.state.state).toBe('waiting');
    if (run?.state.state === 'waiting') expect(run.state.input.requestId).toBe(job.pendingInput?.requestId);
  }
}
