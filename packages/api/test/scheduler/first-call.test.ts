import { JobPhase, RuntimeError, type StartRunArgs } from '@agent-teams/core';
import { MemoryLogger } from '@agent-teams/testkit';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { RunTable } from '../../src/runtimes/durable/run-table.js';
import { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import { type Harness, openHarness, removeTempDirs, waitForPhases, wrapRuntime } from './scheduler-harness.js';

afterAll(removeTempDirs);
afterEach(() => vi.restoreAllMocks());

/** The rows of `runtime_runs` and the conversation entries of `conversationId`, to count writes. */
async function written(h: Harness, conversationId: string) {
  const runs = await h.database.db.selectFrom('runtime_runs').select(['run_key', 'state']).execute();
  const messages = await h.database.db
    .selectFrom('conversation_messages')
    .select(['job_id', 'role'])
    .where('conversation_id', '=', conversationId)
    .execute();
  return { runs, messages };
}

describe('a job admitted here starts with firstCall (no lookup of its key)', () => {
  it('tells the runtime so on the first start only: not on the retry after a failed start', async () => {
    const calls: StartRunArgs[] = [];
    const lookups: string[] = [];
    const findByKey = RunTable.prototype.findByKey;
    vi.spyOn(RunTable.prototype, 'findByKey').mockImplementation(function (this: RunTable<unknown>, runKey) {
      lookups.push(runKey);
      return findByKey.call(this, runKey);
    });
    const h = await openHarness({
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          start: async (args) => {
            calls.push(args);
            if (calls.length === 1) throw new RuntimeError('transient', 'provider hiccup');
            return runtime.start(args);
          },
        }),
    });
    try {
      const { team, members } = await h.team(['researcher', 'reviewer']);
      const [job] = await h.send(team, members.slice(0, 1), 'Count the rows');
      if (!job) throw new Error('no job');
      const [done] = await waitForPhases(h, [job.id], [JobPhase.COMPLETED]);
      expect(done?.result?.text).toBe('m0: Count the rows');
      expect(calls.map((args) => [args.runKey, args.firstCall])).toEqual([
        [job.id, true],
        [job.id, false],
      ]);
      // Looked up by the retry only: the first start read nothing of `runtime_runs`.
      expect(lookups).toEqual([job.id]);
    } finally {
      await h.close();
    }
  });

  it('a first call on a key another server already ran writes nothing twice', async () => {
    let raced = 0;
    const h = await openHarness({
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          // The run is written, then a second server's runtime (its own instance over the same
          // database) makes the same first call: it never looked the key up, its insert loses.
          start: async (args) => {
            const first = await runtime.start(args);
            if (args.firstCall !== true) return first;
            raced += 1;
            const other = new ScriptedRuntime({
              db: h.database.db,
              dialect: h.database.dialect,
              clock: { nowMs: () => Date.now() },
              logger: new MemoryLogger(),
            });
            const again = await other.start(args);
            expect(again.runId).toBe(first.runId);
            return first;
          },
        }),
    });
    try {
      const { team, members } = await h.team(['researcher', 'reviewer']);
      const [job] = await h.send(team, members.slice(0, 1), 'Check twice');
      if (job === undefined) throw new Error('no job');
      const [done] = await waitForPhases(h, [job.id], [JobPhase.COMPLETED]);
      expect(raced).toBe(1);
      expect(done?.result?.text).toBe('m0: Check twice');
      const { runs, messages } = await written(h, job.conversationId);
      expect(runs).toEqual([{ run_key: job.id, state: 'completed' }]);
      expect(messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT']);
    } finally {
      await h.close();
    }
  });
});
