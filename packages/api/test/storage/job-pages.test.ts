// A page of jobs (`Team.jobs`, `Team.activity`, the inbox) and the reads by id that never need
// it read every column of a job but its frozen input (`storage/job-view-rows.ts`, decision 0246):
// that input holds the turn's whole team context and stays after the job ends, and nothing they
// feed shows it. So they neither read nor parse it, and one that no longer reads is not even
// reported by them; the full read still reports it.
import { asOwnerId, type Job, JobPhase, type JobView } from '@agent-teams/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeHarnesses,
  type Harness,
  OWNER,
  openHarness,
  waitFor,
  waitForPhases,
} from '../scheduler/scheduler-harness.js';
import { databaseTargets } from '../support/database-targets.js';
import { unreadableWarnings } from '../support/unreadable-warnings.js';

const TARGETS = databaseTargets('agent_teams_job_pages');
afterEach(closeHarnesses);
const warned = unreadableWarnings();

/** Text that does not parse (cut inside a string, with CJK and an emoji). */
const BROKEN = '{"broken": "数据 😀';

/** The job as a page may show it: every field but the frozen input. */
function withoutInput(job: JobView): Record<string, unknown> {
  return Object.fromEntries(Object.entries(job).filter(([key]) => key !== 'input'));
}

/** Writes `text` over a job's stored input, as a damaged database would hold it. */
function damageInput(h: Harness, jobId: string, text: string) {
  return h.database.db.updateTable('jobs').set({ input_json: text }).where('id', '=', jobId).execute();
}

describe.each(TARGETS)('a page of jobs on %s', (_name, make) => {
  it('holds every field but the frozen input, which it never reads', async () => {
    const h = await openHarness({ file: await make() });
    const { team, members } = await h.team(['researcher', 'reviewer', 'writer']);
    const [answered, asking, damaged] = members;
    if (!answered || !asking || !damaged) throw new Error('no members');
    const [done] = await h.send(team, [answered], 'Instant answer');
    const [waiting] = await h.send(team, [asking], '!ask Which region, 数据 😀?');
    const [lost] = await h.send(team, [damaged], 'Another instant answer');
    if (!done || !waiting || !lost) throw new Error('no jobs');
    await waitForPhases(h, [done.id, lost.id], [JobPhase.COMPLETED]);
    await waitForPhases(h, [waiting.id], [JobPhase.WAITING_INPUT]);
    const full = await h.store.findJobs([done.id, waiting.id, lost.id]);
    // Each was admitted: its input is frozen and stays stored after it ended.
    expect(full.map((job) => job.input === null)).toEqual([false, false, false]);
    await damageInput(h, lost.id, BROKEN);

    const page = await h.store.listJobs(team.id, {}, { first: 100, afterSeq: null });
    expect(page.items.map((job) => 'input' in job)).toEqual([false, false, false]);
    expect(page.items).toEqual(full.map(withoutInput));
    const inbox = await h.store.listWaitingJobs(OWNER, { first: 100, afterSeq: null });
    expect(inbox.items).toEqual([withoutInput(full[1] as Job)]);
    const activity = await h.core.teams.activity(team, { first: 10 });
    expect(activity.unchanged ? [] : activity.jobs.edges.map((edge) => 'input' in edge.node)).toEqual([
      false,
      false,
      false,
    ]);

    // So do the reads by id that never need it: GraphQL's job loader (`Job.parent`, the inbox's
    // changes) and a handoff's chain walk.
    const loaded = await h.core.load.jobs([lost.id, waiting.id, done.id]);
    expect(loaded.map((job) => 'input' in job)).toEqual([false, false, false]);
    expect(loaded).toEqual([full[2], full[1], full[0]].map((job) => withoutInput(job as Job)));
    // And one job by id (GraphQL's `job`, `node`, `jobProgress`; A2A's tasks), its owner's only.
    const one = await h.core.jobs.get(OWNER, lost.id);
    expect(one === null ? null : 'input' in one).toBe(false);
    expect(one).toEqual(withoutInput(full[2] as Job));
    expect(await h.core.jobs.get(asOwnerId('someone-else'), lost.id)).toBeNull();
    expect(await h.core.jobs.get(OWNER, 'job_missing')).toBeNull();

    // The full read still reads the input, and reports the damaged one: the page reported nothing
    // before it (warnings arrive in the order they were given).
    const [read] = await h.store.findJobs([lost.id]);
    expect(read?.input).toBeNull();
    await waitFor(() => warned().length > 0, 'the full read reports the lost input');
    expect(warned()).toEqual([expect.stringMatching(new RegExp(`^jobs\\.input_json of ${lost.id} `))]);
  });
});
