import {
  asRunId,
  type FreezeContext,
  type Job,
  type JobCommand,
  JobPhase,
  type Team,
  TeamEventKind,
  toTimestamp,
  transition,
  type WakeResultJson,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { at, type StoreHarness } from './store-harness.js';

/** Contract cases of durable waits in `Admission`: what wakes a WAITING_CHANGE job, and when. */
export function describeWaitCases(h: () => StoreHarness): void {
  const step = async (job: Job, command: JobCommand) =>
    (
      await h().store.updateJob(job.id, (j) => transition(j, command, { now: h().now(), ids: h().ids }), {
        now: h().now(),
      })
    ).job;
  /** A running request of the team's first member that then waits, `afterSeq` the team's seq before it parks. */
  const waiting = async (team: Team, timeoutMs = 3_600_000): Promise<Job> => {
    const { members } = { members: await h().store.listMembers([team.id]) };
    let job = at(await h().send(team, [at(members, 0)]), 0);
    const input = {
      kind: 'request' as const,
      jobId: job.id,
      teamId: team.id,
      text: job.text,
      memberName: 'm',
      requesterName: null,
      receipt: null,
      context: {},
    };
    job = await step(job, { type: 'FREEZE', input, runKey: job.id });
    job = await step(job, { type: 'ACKNOWLEDGE', runId: asRunId(`run_${job.id}`) });
    const afterSeq = (await h().store.findTeams([team.id]))[0]?.lastEventSeq ?? 0;
    const deadline = toTimestamp(Date.parse(h().now()) + timeoutMs);
    return step(job, { type: 'AWAIT_CHANGE', wait: { requestId: `wait_${job.id}`, afterSeq, timeoutMs, deadline } });
  };
  const admit = async (contexts: FreezeContext[] = []) => {
    const now = h().now();
    return h().store.admit({
      now,
      plan: (snapshot) => ({ admit: snapshot.candidates.map((c) => c.jobId), round: snapshot.round }),
      freeze: (ctx) => {
        contexts.push(ctx);
        return h().freeze(ctx, now);
      },
    });
  };

  describe('durable waits', () => {
    it('keeps a waiting job out of admission while nothing changed, its own parking included', async () => {
      const { team } = await h().team({ size: 2 });
      const job = await waiting(team);
      expect(job).toMatchObject({ phase: JobPhase.WAITING_CHANGE, wait: { requestId: `wait_${job.id}` } });
      expect((await h().store.findJobs([job.id]))[0]?.wait).toEqual(job.wait);
      expect(await admit()).toEqual([]);
      expect(await h().store.nextWaitDeadline()).toBe(job.wait?.deadline);
    });

    it('wakes it on any team change after its seq, handing freeze the changes, into RESUMING', async () => {
      const { team, members } = await h().team({ size: 2 });
      const job = await waiting(team);
      const [other] = await h().send(team, [at(members, 1)]);
      const contexts: FreezeContext[] = [];
      const admitted = await admit(contexts);
      const woken = admitted.find((a) => a.job.id === job.id)?.job;
      expect(woken).toMatchObject({ phase: JobPhase.RESUMING, wait: null, pendingResponse: { kind: 'CHANGE' } });
      const changes = contexts.find((c) => c.job.id === job.id)?.changes ?? [];
      expect(changes.map((e) => e.kind)).toContain(TeamEventKind.JOB_CHANGED);
      expect(changes.some((e) => e.jobId === other?.id)).toBe(true);
      expect(changes.every((e) => e.jobId !== job.id)).toBe(true);
      const value = woken?.pendingResponse?.value as WakeResultJson;
      expect(value.timed_out).toBe(false);
      expect(await h().store.nextWaitDeadline()).toBeNull();
    });

    it('wakes it at its deadline with no changes (timed out)', async () => {
      const { team } = await h().team({ size: 2 });
      // The harness clock moves a second per reading: a 1-second wait has passed by the next pass.
      const job = await waiting(team, 1);
      const admitted = await admit();
      const woken = at(admitted, 0).job;
      expect(woken.id).toBe(job.id);
      expect(woken.pendingResponse?.value).toMatchObject({ timed_out: true, changes: [] });
    });

    it('is cancelled at once, and a DISCONNECTED team’s waits stay asleep', async () => {
      const { team, members } = await h().team({ size: 2 });
      const job = await waiting(team);
      const cancelled = await step(job, { type: 'CANCEL' });
      expect(cancelled).toMatchObject({ phase: JobPhase.CANCELLED, wait: null });
      const other = await h().team({ size: 2 });
      const asleep = await waiting(other.team, 1);
      await h().store.setTeamStatus(other.team.id, 'DISCONNECTED', h().now());
      await h().send(team, [at(members, 1)]);
      expect((await admit()).map((a) => a.job.id)).not.toContain(asleep.id);
    });
  });
}
