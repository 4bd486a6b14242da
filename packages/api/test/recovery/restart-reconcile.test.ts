import { JobPhase, RuntimeError, TeamStatus } from '@agent-teams/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { resumeCreatingTeams } from '../../src/app/resume-creations.js';
import {
  closeHarnesses,
  type Harness,
  OWNER,
  openHarness,
  removeTempDirs,
  waitFor,
  waitForPhases,
  wrapRuntime,
} from '../scheduler/scheduler-harness.js';

afterEach(closeHarnesses);
afterAll(removeTempDirs);

const runsOf = (h: Harness, jobId: string) =>
  h.database.db.selectFrom('runtime_runs').select(['run_key', 'state']).where('job_id', '=', jobId).execute();

describe('restart reconciliation', () => {
  it('resubmits an answer left RESUMING by a stopped server with the same key, running it once', async () => {
    const first = await openHarness({
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          resume: async () => {
            throw new RuntimeError('transient', 'runtime unreachable');
          },
        }),
    });
    const { team, members } = await first.team(['researcher', 'reviewer']);
    const [job] = await first.send(team, members.slice(0, 1), '!ask Which region?');
    if (!job) throw new Error('no job');
    await waitForPhases(first, [job.id], [JobPhase.WAITING_INPUT]);
    await first.core.jobs.respond(OWNER, { jobId: job.id, response: 'EU', clientRequestId: 'a1' });
    const resuming = await waitForPhases(first, [job.id], [JobPhase.RESUMING]);
    expect(resuming[0]?.pendingResponse?.value).toBe('EU');
    await first.close();

    const second = await openHarness({ file: first.file });
    const [done] = await waitForPhases(second, [job.id], [JobPhase.COMPLETED]);
    expect(done?.result?.text).toBe('answered: EU');
    const runs = await runsOf(second, job.id);
    expect(runs.map((r) => r.state).sort()).toEqual(['completed', 'waiting']);
  });

  it("keeps a disconnected team's job in its state and slot until reconnectTeam, then finishes it once", async () => {
    let failStarts = true;
    let ensured = 0;
    const h = await openHarness({
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          ensureConversation: async (args) => {
            ensured += 1;
            return runtime.ensureConversation(args);
          },
          start: async (args) => {
            if (failStarts) throw new RuntimeError('ambiguous', 'connection reset after sending');
            return runtime.start(args);
          },
        }),
    });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [job] = await h.send(team, members.slice(0, 1), 'Needs the runtime');
    if (!job) throw new Error('no job');
    await waitFor(
      async () => (await h.store.findTeams([team.id]))[0]?.status === TeamStatus.DISCONNECTED,
      'disconnect',
    );
    expect((await h.job(job.id)).phase).toBe(JobPhase.ADMITTING);
    expect((await h.store.listActiveJobs()).map((j) => j.id)).toEqual([job.id]);
    failStarts = false;
    const before = ensured;
    const reconnected = await h.core.teams.reconnect(OWNER, team.id);
    expect(reconnected.status).toBe(TeamStatus.READY);
    expect(ensured - before).toBe(members.length);
    const [done] = await waitForPhases(h, [job.id], [JobPhase.COMPLETED]);
    expect(done?.result?.text).toBe('m0: Needs the runtime');
    expect(await runsOf(h, job.id)).toEqual([{ run_key: job.id, state: 'completed' }]);
  });

  it('leaves a team CREATING while a conversation cannot be made, and finishes it on start', async () => {
    const first = await openHarness({
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          ensureConversation: async () => {
            throw new RuntimeError('transient', 'runtime down');
          },
        }),
    });
    const { team } = await first.team(['researcher', 'reviewer']);
    expect(team.status).toBe(TeamStatus.CREATING);
    await first.close();

    const second = await openHarness({ file: first.file });
    // Starting the application resumes the interrupted creation.
    await waitFor(async () => (await second.store.findTeams([team.id]))[0]?.status === TeamStatus.READY, 'READY');
    expect(await resumeCreatingTeams({ store: second.store, core: second.core, logger: second.logger })).toBe(0);
  });
});
