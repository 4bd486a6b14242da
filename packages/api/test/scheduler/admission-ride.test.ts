import {
  type AgentCatalog,
  DEFAULT_ADMISSION_POLICY,
  JobPhase,
  RuntimeError,
  type TeamEvent,
  TeamEventKind,
} from '@agent-teams/core';
import { StaticCatalog } from '@agent-teams/testkit';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import {
  closeHarnesses,
  OWNER,
  openHarness,
  removeTempDirs,
  TEST_AGENTS,
  waitFor,
  waitForPhases,
  wrapRuntime,
} from './scheduler-harness.js';

afterAll(async () => {
  await closeHarnesses();
  removeTempDirs();
});

/** A trigger that makes every admission fail inside the database, as a broken write would (each job's own failure). */
const REFUSE_ADMISSION = sql`
  create trigger refuse_admission before update of phase on jobs
  when new.phase = 'ADMITTING'
  begin select raise(abort, 'admission refused by the test'); end`;

describe('admission riding the enqueue (decision 0223)', () => {
  it('admits a request in its own commit and answers with the job as committed', async () => {
    const h = await openHarness();
    const { team, members } = await h.team(['researcher', 'reviewer']);
    await h.scheduler.idle();
    const published: TeamEvent[][] = [];
    h.app.events.listen((events) => published.push([...events]));
    const [job] = await h.send(team, members.slice(0, 1), '!sleep 100');
    if (job === undefined) throw new Error('no job');
    // The answer is the job as its one commit left it: admitted, its turn frozen, leased here.
    expect(job.phase).toBe(JobPhase.ADMITTING);
    expect(job.runKey).toBe(job.id);
    expect(await h.job(job.id)).toEqual(job);
    // One commit for the request and its admission: its events published once, the job's change once.
    expect(published).toHaveLength(1);
    expect(published[0]?.filter((event) => event.kind === TeamEventKind.JOB_CHANGED)).toHaveLength(1);
    await waitFor(async () => (await h.job(job.id)).phase === JobPhase.COMPLETED, 'completed');
  });

  it('leaves a request that finds every slot busy to the passes, which admit it once a slot frees', async () => {
    const h = await openHarness({
      scheduler: { admission: { ...DEFAULT_ADMISSION_POLICY, activeJobs: 1, reservedForOthers: 0 } },
    });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [first] = await h.send(team, members.slice(0, 1), '!sleep 300');
    const [second] = await h.send(team, members.slice(1, 2), 'quick');
    if (first === undefined || second === undefined) throw new Error('no job');
    expect(first.phase).toBe(JobPhase.ADMITTING);
    expect(second.phase).toBe(JobPhase.QUEUED);
    await waitFor(async () => (await h.job(second.id)).phase === JobPhase.COMPLETED, 'second completed', 15_000);
    const ended = await h.job(first.id);
    expect(ended.phase).toBe(JobPhase.COMPLETED);
    // The one slot: the second started only after the first ended.
    expect(Date.parse((await h.job(second.id)).updatedAt)).toBeGreaterThanOrEqual(Date.parse(ended.updatedAt));
  });

  it('commits the request alone when its admission fails, and a pass admits it after the backoff', async () => {
    const h = await openHarness();
    const { team, members } = await h.team(['researcher', 'reviewer']);
    await h.scheduler.idle();
    await REFUSE_ADMISSION.execute(h.database.db);
    const published: TeamEvent[][] = [];
    h.app.events.listen((events) => published.push([...events]));
    const [job] = await h.send(team, members.slice(0, 1), 'hello');
    if (job === undefined) throw new Error('no job');
    expect(job.phase).toBe(JobPhase.QUEUED);
    expect(await h.job(job.id)).toEqual(job);
    // The failure is the job's own: it is set aside (decision 0248), admission goes on for the rest.
    expect(h.logger.entries).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'admitting a job failed; it is set aside and retried, the others go on',
        fields: expect.objectContaining({ jobId: job.id }),
      }),
    );
    // The rolled-back admission left no event: what was published is exactly the log, gap-free.
    const log = await h.core.events.read(OWNER, team.id, 0, 1_000);
    const request = log.filter((event) => event.seq > (log.find((e) => e.jobId === job.id)?.seq ?? 0) - 1);
    expect(published[0]).toEqual(request);
    expect(request.map((event) => event.kind)).toEqual([
      TeamEventKind.JOB_CHANGED,
      TeamEventKind.RECORD_APPENDED,
      TeamEventKind.MEMBER_CHANGED,
    ]);
    for (let i = 1; i < log.length; i += 1) expect(log[i]?.seq).toBe((log[i - 1]?.seq ?? 0) + 1);
    // The database accepts admissions again: the retry after the backoff admits and runs it.
    await sql`drop trigger refuse_admission`.execute(h.database.db);
    await waitFor(async () => (await h.job(job.id)).phase === JobPhase.COMPLETED, 'completed', 15_000);
  });

  it('does not ride while admission backs off, nor once the scheduler stopped', async () => {
    // A catalog that fails: no job's fault, so admission backs off as a whole.
    const agents = new StaticCatalog(TEST_AGENTS);
    let down = false;
    const catalog: AgentCatalog = {
      list: () => (down ? Promise.reject(new Error('catalog down (the test)')) : agents.list()),
      get: (id) => agents.get(id),
    };
    const h = await openHarness({ catalog });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    await h.scheduler.idle();
    down = true;
    const [failed] = await h.send(team, members.slice(0, 1), 'first');
    expect(failed?.phase).toBe(JobPhase.QUEUED);
    expect(h.logger.entries).toContainEqual(expect.objectContaining({ message: 'admission pass failed; retrying' }));
    // Within the backoff (250 ms from the failure): the next enqueue is offered no ride.
    expect(await h.scheduler.enqueueAdmission.prepare(new Date().toISOString())).toBeNull();
    down = false;
    await h.scheduler.stop();
    expect(await h.scheduler.enqueueAdmission.prepare(new Date().toISOString())).toBeNull();
    const [after] = await h.send(team, members.slice(0, 1), 'third');
    expect(after?.phase).toBe(JobPhase.QUEUED);
  });

  it('starts a ridden job again after its first start failed transiently, not at the safety net', async () => {
    let starts = 0;
    const h = await openHarness({
      // Ten minutes: only the retry under test can move the job within the test's timeout.
      scheduler: { safetyNetMs: 600_000 },
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          start: async (args) => {
            starts += 1;
            if (starts === 1) throw new RuntimeError('transient', 'HTTP 503 from the agent host');
            return runtime.start(args);
          },
        }),
    });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    await h.scheduler.idle();
    const [job] = await h.send(team, members.slice(0, 1), 'hello');
    if (job === undefined) throw new Error('no job');
    expect(job.phase).toBe(JobPhase.ADMITTING);
    await waitForPhases(h, [job.id], [JobPhase.COMPLETED]);
    expect(starts).toBe(2);
  });

  it('cancels a ridden job cancelled before any pass ran, without waiting for the safety net', async () => {
    const h = await openHarness();
    const { team, members } = await h.team(['researcher', 'reviewer']);
    await h.scheduler.idle();
    const [job] = await h.send(team, members.slice(0, 1), '!sleep 600000');
    if (job === undefined) throw new Error('no job');
    await waitForPhases(h, [job.id], [JobPhase.RUNNING]);
    await h.core.jobs.cancel(OWNER, job.id);
    // The cancel's pass finds the job still marked started by the ride: changed since, it drives
    // it (before, only the safety net's pass 5 s later did).
    await waitForPhases(h, [job.id], [JobPhase.CANCELLED], 2_500);
  });
});
