import { ACTIVE_PHASES, DEFAULT_ADMISSION_POLICY, type Job, JobPhase } from '@agent-teams/core';
import { StaticCatalog } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import { type Harness, harnessPerTest, openHarness, TEST_AGENTS, waitFor, waitForPhases } from './scheduler-harness.js';

let h: Harness;
harnessPerTest((opened) => {
  h = opened;
});

describe('scheduler admission', () => {
  it('runs the jobs of one conversation strictly one at a time, oldest first', async () => {
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const target = members.slice(0, 1);
    const first = await h.send(team, target, '!sleep 120\n!reply first');
    const second = await h.send(team, target, '!reply second');
    const third = await h.send(team, target, '!sleep 30\n!reply third');
    const ids = [...first, ...second, ...third].map((job) => job.id);
    let maxActiveInConversation = 0;
    const jobs = await waitFor(async () => {
      const current = await h.store.findJobs(ids);
      const active = current.filter((job) => ACTIVE_PHASES.includes(job.phase)).length;
      maxActiveInConversation = Math.max(maxActiveInConversation, active);
      return current.every((job) => job.phase === JobPhase.COMPLETED) ? current : null;
    }, 'three completed jobs');
    expect(maxActiveInConversation).toBe(1);
    const byId = new Map(jobs.map((job) => [job.id, job]));
    const ordered = ids.map((id) => byId.get(id) as Job);
    expect(ordered.map((job) => job.result?.text)).toEqual(['slept 120 ms\nfirst', 'second', 'slept 30 ms\nthird']);
    for (let i = 1; i < ordered.length; i += 1) {
      expect(Date.parse(ordered[i]?.startedAt ?? '')).toBeGreaterThanOrEqual(
        Date.parse(ordered[i - 1]?.finishedAt ?? ''),
      );
    }
  });

  it('holds one owner to 6 active jobs (8 slots, 2 kept for others) for 16 sleeping jobs in 16 conversations', async () => {
    const a = await h.team(Array.from({ length: 8 }, () => 'researcher'));
    const b = await h.team(Array.from({ length: 8 }, () => 'writer'));
    const sent = [
      ...(await h.send(a.team, a.members, '!sleep 250')),
      ...(await h.send(b.team, b.members, '!sleep 250')),
    ];
    expect(sent).toHaveLength(16);
    let maxActive = 0;
    await waitFor(async () => {
      const active = await h.store.listActiveJobs();
      maxActive = Math.max(maxActive, active.length);
      const jobs = await h.store.findJobs(sent.map((job) => job.id));
      return jobs.every((job) => job.phase === JobPhase.COMPLETED);
    }, '16 completed jobs');
    const { activeJobs, reservedForOthers } = DEFAULT_ADMISSION_POLICY;
    expect(maxActive).toBe(activeJobs - reservedForOthers);
  });

  it('fails a job whose agent is missing from the catalog at admission, with a clear message', async () => {
    await h.close();
    // The writer agent leaves the configuration after the team was created with it.
    const removed = new Set<string>();
    const all = new StaticCatalog(TEST_AGENTS);
    h = await openHarness({
      catalog: {
        list: async () => (await all.list()).filter((agent) => !removed.has(agent.id)),
        get: async (id) => (removed.has(id) ? null : all.get(id)),
      },
    });
    const { team, members } = await h.team(['researcher', 'writer']);
    removed.add('writer');
    const jobs = await h.send(team, members, 'Draft the summary');
    const [ok, missing] = await waitForPhases(
      h,
      jobs.map((job) => job.id),
      [JobPhase.COMPLETED, JobPhase.FAILED],
    ).then((done) => jobs.map((job) => done.find((d) => d.id === job.id)));
    expect(ok?.phase).toBe(JobPhase.COMPLETED);
    expect(missing?.phase).toBe(JobPhase.FAILED);
    expect(missing?.error).toContain('"writer" is not in the agent catalog');
  });
});
