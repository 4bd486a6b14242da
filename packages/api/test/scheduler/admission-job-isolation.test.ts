// One job whose admission fails (its freeze throws, the database refuses its write) must not stop
// admission for every other team: the pass rolls back, names the job (`AdmissionJobError`), and
// the scheduler sets that job aside with its own backoff while the next pass admits the rest. The
// failure is real: a trigger on the real database refuses the broken team's admission writes.
import { type Job, type JobId, JobPhase } from '@agent-teams/core';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/database-targets.js';
import { allowAdmission, refuseAdmission } from './refuse-admission.js';
import { type Harness, openHarness, waitFor, waitForPhases } from './scheduler-harness.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const TARGETS = databaseTargets('agent_teams_admission_isolation');

/** The log line of a job set aside (`AdmissionPass`). */
const SET_ASIDE = 'admitting a job failed; it is set aside and retried, the others go on';
/** The log line of a whole admission backing off (`AdmissionPass`). */
const WHOLE_PASS_FAILED = 'admission pass failed; retrying';

/** The log lines of the admission, by message. */
function lines(harness: Harness, message: string) {
  return harness.logger.entries.filter((entry) => entry.message === message);
}

describe.each(TARGETS)('a job whose admission fails (%s)', (_name, target) => {
  it('is set aside while every other team is admitted, and admitted once its write works', async () => {
    const harness = await openHarness({ file: await target() });
    h = harness;
    const broken = await harness.team(['researcher', 'reviewer']);
    await refuseAdmission(harness, broken.team.id);
    const [stuck] = (await harness.send(broken.team, broken.members.slice(0, 1), 'Summarise the plan')) as [Job];
    await waitFor(
      () => harness.logger.entries.some((entry) => String(entry.fields?.error).includes('refused by the test')),
      'the broken job refused',
    );

    // Another team's requests, sent while the broken job keeps failing: admitted and answered.
    const other = await harness.team(['researcher', 'reviewer']);
    const requests = await harness.send(other.team, other.members, 'Summarise the plan');
    await waitForPhases(
      harness,
      requests.map((job) => job.id),
      [JobPhase.COMPLETED],
    );
    expect((await harness.job(stuck.id)).phase).toBe(JobPhase.QUEUED);
    // Never the whole admission: the failure names the job and its team.
    expect(lines(harness, WHOLE_PASS_FAILED)).toEqual([]);
    const [first] = lines(harness, SET_ASIDE);
    expect(first?.fields).toMatchObject({ jobId: stuck.id, teamId: broken.team.id });
    expect(String(first?.fields?.error)).toContain('refused by the test');

    // Retried with its own backoff (doubling from 250 ms), not at every pass the others caused.
    const failures = lines(harness, SET_ASIDE).length;
    expect(failures).toBeLessThan(12);

    await allowAdmission(harness);
    await waitForPhases(harness, [stuck.id as JobId], [JobPhase.COMPLETED], 40_000);
    expect(lines(harness, WHOLE_PASS_FAILED)).toEqual([]);
  });
});
