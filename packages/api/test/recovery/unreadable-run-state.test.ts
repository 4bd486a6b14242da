// A run document that no longer reads (`runtime_runs.state_json` damaged or edited by hand while
// the server is down) fails only its job, with STATE_LOST, as soon as the restarted scheduler
// looks at it: not every step until the turn's deadline (`runtimes/durable/run-table.ts`).
import { type Job, JobErrorCode, type JobId, JobPhase, type RunContext, type RunId } from '@agent-teams/core';
import { agentDefinition } from '@agent-teams/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_STATE_LOST } from '../../src/runtimes/durable/run-table.js';
import { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
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

const TARGETS = databaseTargets('agent_teams_unreadable_run');
/** The server of the current test (a restart opens another on the same database). */
let h: Harness | null = null;
afterEach(closeHarnesses);
const warned = unreadableWarnings();

/** Text that does not parse (cut inside a string, with CJK and an emoji). */
const BROKEN = '{"broken": "数据 😀';
/** JSON that parses but is no run document. */
const NOT_DOCUMENTS = ['[1]', 'null'] as const;

/** A turn that leaves its run stored `running` when the server stops (far inside the deadline). */
const LONG_TURN = '!sleep 600000';

/** The jobs' run ids, once each job reached `phase`. */
async function runsOf(ids: readonly JobId[], phase: JobPhase): Promise<RunId[]> {
  const jobs = await waitForPhases(h as Harness, ids, [phase]);
  return jobs.map((job) => {
    if (job.runId === null) throw new Error(`job ${job.id} has no run`);
    return job.runId;
  });
}

/** Opens a server on `file` with one team, sends `text` to its first member and waits for `phase`. */
async function oneJob(file: string, text: string, phase: JobPhase) {
  h = await openHarness({ file });
  const { team, members } = await h.team(['researcher', 'reviewer']);
  const [member] = members;
  const [job] = member ? await h.send(team, [member], text) : [];
  if (!member || !job) throw new Error('no job');
  const [runId] = await runsOf([job.id], phase);
  if (!runId) throw new Error('no run');
  return { job, runId, member };
}

/** Stops the server, runs `edit` on its database, and leaves it stopped. */
async function whileStopped(file: string, edit: (opened: OpenedDatabase) => Promise<void>): Promise<void> {
  await h?.close();
  h = null;
  const opened = await openDatabase(file);
  try {
    await edit(opened);
  } finally {
    await opened.close();
  }
}

/** Writes `text` over a run's stored document, as a hand edit or a damaged restore would. */
function damage(db: OpenedDatabase['db'], runId: string, text: string) {
  return db.updateTable('runtime_runs').set({ state_json: text }).where('run_id', '=', runId).execute();
}

/** The current test's warnings that name the run's document. */
const reportsOf = (runId: string) => warned().filter((m) => m.startsWith(`runtime_runs.state_json of ${runId} `));

/** Answers the job's question as a person, and waits for the job to fail. */
async function answerAndFail(jobId: JobId, clientRequestId: string): Promise<Job | undefined> {
  const harness = h as Harness;
  const inputRequestId = (await harness.job(jobId)).pendingInput?.requestId ?? null;
  await harness.core.jobs.respond(OWNER, { jobId, response: 'EU', clientRequestId, inputRequestId });
  const [answered] = await waitForPhases(harness, [jobId], [JobPhase.FAILED]);
  return answered;
}

describe.each(TARGETS)('a run document that no longer reads (%s)', (_name, target) => {
  it('fails its job with STATE_LOST soon after the restart and runs every other team', async () => {
    const file = await target();
    h = await openHarness({ file });
    const { team, members } = await h.team(['researcher', 'reviewer', 'researcher', 'reviewer']);
    const running = await h.send(team, members.slice(0, 3), LONG_TURN);
    const [asked] = await h.send(team, members.slice(3), '!ask Which region?');
    if (!asked) throw new Error('no job');
    const runIds = await runsOf(
      running.map((job) => job.id),
      JobPhase.RUNNING,
    );
    const [askedRun] = await runsOf([asked.id], JobPhase.WAITING_INPUT);
    if (!askedRun) throw new Error('no run');
    const other = await h.team(['researcher', 'reviewer']);

    // Two runs stored `running` get text that does not parse and JSON of the wrong shape; a third
    // JSON `null`; the run that asked a person (stored `waiting`) gets text that does not parse.
    const texts = [BROKEN, ...NOT_DOCUMENTS];
    await whileStopped(file, async ({ db }) => {
      for (const [index, runId] of runIds.entries()) await damage(db, runId, texts[index] as string);
      await damage(db, askedRun, BROKEN);
    });

    h = await openHarness({ file });
    const [healthy] = await h.send(other.team, other.members.slice(0, 1), 'Summarise the plan');
    if (!healthy) throw new Error('no job');
    // The wait is bounded far below the turns' deadline (180 s), where they would time out.
    const failed = await waitForPhases(
      h,
      running.map((job) => job.id),
      [JobPhase.FAILED],
    );
    const lost = (job: Job | undefined) => ({ code: job?.errorCode, error: job?.error });
    const expected = { code: JobErrorCode.STATE_LOST, error: RUN_STATE_LOST.error };
    expect(failed.map(lost)).toEqual([expected, expected, expected]);
    const [done] = await waitForPhases(h, [healthy.id], [JobPhase.COMPLETED]);
    expect(done?.result?.text).toBeTruthy();

    // The person's answer cannot continue a run whose document is lost: it fails the same way,
    // instead of being refused as the runtime's rejection (RUNTIME_ERROR) or retried.
    const answered = await answerAndFail(asked.id, 'answer-1');
    expect(lost(answered)).toEqual(expected);

    // Each document is reported once, naming its row and never its text.
    await waitFor(() => [...runIds, askedRun].every((runId) => reportsOf(runId).length > 0), 'the warnings');
    const reports = [...runIds, askedRun].map((runId) => reportsOf(runId));
    expect(reports.map((found) => found.length)).toEqual([1, 1, 1, 1]);
    expect(reports.map(([report]) => report?.split(' (')[0])).toEqual([
      `runtime_runs.state_json of ${runIds[0]} does not read as JSON`,
      `runtime_runs.state_json of ${runIds[1]} is not a run document`,
      `runtime_runs.state_json of ${runIds[2]} is not a run document`,
      `runtime_runs.state_json of ${askedRun} does not read as JSON`,
    ]);
    for (const report of warned()) {
      for (const text of ['数据', 'broken', '[1]']) expect(report).not.toContain(text);
    }
  });

  it('fails an answered job whose run document was damaged while the server ran, over the state it knew', async () => {
    // Waiting: this server has polled the run and keeps its state (waiting) in memory.
    const { job: asked, runId } = await oneJob(await target(), '!ask Which region?', JobPhase.WAITING_INPUT);
    await damage((h as Harness).database.db, runId, BROKEN);
    // Not back to waiting for the same question (the state it knew): failed, as lost.
    const answered = await answerAndFail(asked.id, 'answer-live');
    expect(answered?.errorCode).toBe(JobErrorCode.STATE_LOST);
    await waitFor(() => reportsOf(runId).length > 0, 'the warning');
    expect(reportsOf(runId)).toHaveLength(1);
  });

  it('ends a cancelling job whose run document no longer reads', async () => {
    const file = await target();
    const { job, runId } = await oneJob(file, LONG_TURN, JobPhase.RUNNING);
    // Cancelled just before the server stopped (`cancelJob` committed, the run not stopped yet).
    await whileStopped(file, async ({ db }) => {
      await damage(db, runId, BROKEN);
      await db.updateTable('jobs').set({ phase: 'CANCELLING' }).where('id', '=', job.id).execute();
    });
    h = await openHarness({ file });
    const [cancelled] = await waitForPhases(h, [job.id], [JobPhase.CANCELLED]);
    expect(cancelled?.phase).toBe(JobPhase.CANCELLED);
    await waitFor(() => reportsOf(runId).length > 0, 'the warning');
    expect(reportsOf(runId)).toHaveLength(1);
  });

  it("cancels a stored run whose document no longer reads, as the runtime's cancel", async () => {
    const file = await target();
    const { job, runId, member } = await oneJob(file, LONG_TURN, JobPhase.RUNNING);
    const context: RunContext = {
      teamId: job.teamId,
      memberId: member.id,
      jobId: job.id,
      conversationId: job.conversationId,
      agent: agentDefinition({ name: 'researcher' }),
      tools: { invoke: async () => null },
    };
    await whileStopped(file, async ({ db, dialect }) => {
      await damage(db, runId, NOT_DOCUMENTS[0]);
      // The runtime alone, over the stopped server's database: no execution holds the run.
      const silent = { info: () => {}, warn: () => {}, error: () => {} };
      const runtime = new ScriptedRuntime({ db, dialect, clock: { nowMs: () => Date.now() }, logger: silent });
      try {
        await runtime.cancel({ runId, context });
        expect(await runtime.poll({ runId, context })).toEqual({ state: 'cancelled' });
      } finally {
        await runtime.dispose();
      }
    });
    await waitFor(() => reportsOf(runId).length > 0, 'the warning');
    expect(reportsOf(runId)).toHaveLength(1);
  });
});
