// Jobs set aside after their own admission failed (decision 0248) must not take the places of an
// owner's other work in the candidates a pass reads: the store reads each owner's oldest
// `capacity - active + 1` conversation heads, and the pass then plans without the set-aside ones.
// When the set-aside jobs were all those heads, every newer job of the same owner (any of its
// teams) was never read, and so never admitted, for as long as the broken jobs kept failing.
import { DEFAULT_ADMISSION_POLICY, type Job, type JobId, JobPhase } from '@agent-teams/core';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/database-targets.js';
import { refuseAdmission } from './refuse-admission.js';
import { type Harness, openHarness, waitFor, waitForPhases } from './scheduler-harness.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const TARGETS = databaseTargets('agent_teams_set_aside_heads');

/** Two slots: each owner's candidates are its 3 oldest conversation heads while none is active. */
const POLICY = { ...DEFAULT_ADMISSION_POLICY, activeJobs: 2, reservedForOthers: 0 };

/** The jobs set aside so far, by id (`AdmissionPass`'s log line). */
function setAside(harness: Harness): Set<string> {
  const message = 'admitting a job failed; it is set aside and retried, the others go on';
  return new Set(
    harness.logger.entries.filter((entry) => entry.message === message).map((entry) => String(entry.fields?.jobId)),
  );
}

describe.each(TARGETS)("jobs set aside as an owner's oldest heads (%s)", (_name, target) => {
  it("leave room for the owner's other work, which is admitted and answered", async () => {
    const harness = await openHarness({ file: await target(), scheduler: { admission: POLICY } });
    h = harness;
    // Three conversations whose heads keep failing: as many as the owner's heads a pass reads.
    const broken = await harness.team(['researcher', 'reviewer', 'researcher']);
    await refuseAdmission(harness, broken.team.id);
    const stuck = await harness.send(broken.team, broken.members, 'Summarise the plan');
    await waitFor(() => stuck.every((job) => setAside(harness).has(job.id)), 'every broken job set aside');

    // The same owner's request to another team, newer than the broken heads.
    const other = await harness.team(['researcher', 'reviewer']);
    const [request] = (await harness.send(other.team, other.members.slice(0, 1), 'Summarise the plan')) as [Job];
    await waitForPhases(harness, [request.id as JobId], [JobPhase.COMPLETED], 15_000);
    for (const job of stuck) expect((await harness.job(job.id)).phase).toBe(JobPhase.QUEUED);
  });
});
