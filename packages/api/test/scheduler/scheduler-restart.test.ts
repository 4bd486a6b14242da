import { JobPhase, RuntimeError } from '@agent-teams/core';
import { afterAll, describe, expect, it } from 'vitest';
import { type Harness, openHarness, removeTempDirs, waitFor, waitForPhases, wrapRuntime } from './scheduler-harness.js';

afterAll(removeTempDirs);

async function runRows(h: Harness) {
  return h.database.db.selectFrom('runtime_runs').select(['run_key', 'run_id', 'state']).orderBy('run_key').execute();
}

async function finalAnswers(h: Harness, conversationIds: readonly string[]) {
  const rows = await h.database.db
    .selectFrom('conversation_messages')
    .select(['job_id', 'role', 'tool_name'])
    .where('conversation_id', 'in', conversationIds)
    .execute();
  return rows;
}

describe('scheduler restart and reconciliation', () => {
  it('finishes every job once after a restart in the middle of sleeping runs', async () => {
    const before = await openHarness();
    const { team, members } = await before.team(['researcher', 'reviewer', 'writer', 'researcher']);
    const jobs = await before.send(team, members, '!sleep 600\n!reply woke');
    const ids = jobs.map((job) => job.id);
    await waitForPhases(before, ids, [JobPhase.RUNNING]);
    await before.close();

    const after = await openHarness({ file: before.file });
    try {
      const done = await waitForPhases(after, ids, [JobPhase.COMPLETED]);
      expect(done.map((job) => job.result?.text)).toEqual(ids.map(() => 'slept 600 ms\nwoke'));
      const rows = await runRows(after);
      expect(rows.map((row) => row.run_key)).toEqual([...ids].sort());
      expect(rows.every((row) => row.state === 'completed')).toBe(true);
      const messages = await finalAnswers(
        after,
        members.map((member) => member.conversationId),
      );
      for (const id of ids) {
        // One USER turn and one final answer per job: the replay did not write the turn twice.
        expect(messages.filter((m) => m.job_id === id).map((m) => m.role)).toEqual(['USER', 'ASSISTANT']);
      }
    } finally {
      await after.close();
    }
  });

  it('starts an admitted job whose acknowledgement was lost again with the same key, completing it once', async () => {
    let lost = 0;
    const h = await openHarness({
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          start: async (args) => {
            await runtime.start(args);
            if (lost === 0) {
              lost += 1;
              throw new RuntimeError('transient', 'connection reset after the run was accepted');
            }
            return runtime.start(args);
          },
        }),
    });
    try {
      const { team, members } = await h.team(['researcher', 'reviewer']);
      const [job] = await h.send(team, members.slice(0, 1), 'Check the numbers');
      if (!job) throw new Error('no job');
      const [done] = await waitForPhases(h, [job.id], [JobPhase.COMPLETED]);
      expect(lost).toBe(1);
      expect(done?.result?.text).toBe('m0: Check the numbers');
      expect(await runRows(h)).toEqual([{ run_key: job.id, run_id: done?.runId, state: 'completed' }]);
      const messages = await finalAnswers(h, [job.conversationId]);
      expect(messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT']);
      expect(h.logger.entries.some((e) => e.fields.jobId === job.id && e.level === 'error')).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('re-starts an ADMITTING job left by a stopped server with its frozen key', async () => {
    const before = await openHarness({
      wrap: (runtime) => wrapRuntime(runtime, { start: () => new Promise(() => {}) }),
      scheduler: { stepTimeoutMs: 60_000, stopTimeoutMs: 50 },
    });
    const { team, members } = await before.team(['researcher', 'reviewer']);
    const [job] = await before.send(team, members.slice(0, 1), 'Frozen before the crash');
    if (!job) throw new Error('no job');
    await waitForPhases(before, [job.id], [JobPhase.ADMITTING]);
    await before.close();

    const starts: (boolean | undefined)[] = [];
    const after = await openHarness({
      file: before.file,
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          start: (args) => {
            starts.push(args.firstCall);
            return runtime.start(args);
          },
        }),
    });
    try {
      const [done] = await waitForPhases(after, [job.id], [JobPhase.COMPLETED]);
      expect(done?.runKey).toBe(job.id);
      expect(done?.result?.text).toBe('m0: Frozen before the crash');
      await waitFor(async () => (await runRows(after)).length === 1, 'one run row');
      // Not admitted by this process: the runtime must look its key up (a run may exist).
      expect(starts).toEqual([false]);
    } finally {
      await after.close();
    }
  });
});
