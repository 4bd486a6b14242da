import { asRunId } from '@agent-teams/core';
import { InsertQueryNode, type KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { SpendGuard } from '../../src/runtimes/spend-guard.js';
import { openRunRides } from '../../src/storage/open-run-rides.js';
import { RIDE_MAX_FAILURES, RideLostError } from '../../src/storage/run-rides.js';
import { runWrite } from '../../src/storage/write-transaction.js';
import { CommitCounter } from '../support/commit-counter.js';
import { checkFirstAnswerRide } from './first-answer-ride.js';
import {
  context,
  openAiAgent,
  requestInput,
  runtimeOver,
  settle,
  until,
  useRuntimeFixture,
} from './runtime-fixture.js';

const fixture = useRuntimeFixture();
const NOW = '2026-12-03T12:00:00.000Z';
const CLOCK = { nowMs: () => Date.now() };

/** What the database holds of a run: its row's state, its messages' steps, its usage rows. */
async function stored(runId: string) {
  const { database } = fixture();
  const run = await database.db
    .selectFrom('runtime_runs')
    .select('state')
    .where('run_id', '=', runId)
    .executeTakeFirst();
  const steps = await database.db
    .selectFrom('openai_messages')
    .select('step')
    .where('run_id', '=', runId)
    .orderBy('step')
    .execute();
  const usage = await database.db.selectFrom('model_usage').select('id').execute();
  return { state: run?.state ?? null, steps: steps.map((row) => row.step), usage: usage.length };
}

describe("OpenAiRuntime: a final answer rides in the job's write (decision 0221)", () => {
  it('holds the run, its input, the answer and its usage for the job write, which commits them in one', async () => {
    const { provider, database } = fixture();
    provider.enqueue({ kind: 'answer', content: 'done' });
    const counter = new CommitCounter();
    const db = database.db.withPlugin(counter);
    const rides = openRunRides({ db, dialect: database.dialect }, CLOCK, 60_000);
    const runtime = runtimeOver(fixture(), { plugin: counter, rides });
    const ctx = context('job_1', openAiAgent());
    try {
      const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
      expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'done' });
      // The scheduler's persist before the acknowledgement: nothing to write, the ride carries the begin.
      await runtime.persist({ runId: asRunId(runId) });
      expect(await stored(runId)).toEqual({ state: null, steps: [], usage: 0 });
      expect(counter.commits).toBe(0);
      // The job write (here: a transaction that claims the ride, as `updateJob` does).
      const ctxWithRides = { db, dialect: database.dialect, sink: null, ids: null, rides };
      expect(await runWrite(ctxWithRides, NOW, (scope) => scope.carryRide(runId))).toBe(true);
      expect(counter.commits).toBe(1);
      expect(await stored(runId)).toEqual({ state: 'completed', steps: [0, 1], usage: 1 });
      expect(await runtime.poll({ runId: asRunId(runId), context: ctx })).toEqual({
        state: 'completed',
        answer: 'done',
      });
    } finally {
      await runtime.dispose();
    }
  });

  it('writes the answer itself when a spend reservation waits for its usage', async () => {
    const { provider } = fixture();
    provider.enqueue({ kind: 'answer', content: 'done' });
    const released: string[] = [];
    const spend: SpendGuard = {
      reserve: async () => ({ ok: true, reserved: true, release: async () => void released.push('released') }),
    };
    const rides = openRunRides(fixture().database, CLOCK, 60_000);
    const runtime = runtimeOver(fixture(), { rides, spend });
    const ctx = context('job_2', openAiAgent());
    try {
      const { runId } = await runtime.start({ runKey: 'job_2', input: requestInput('job_2', 'Go'), context: ctx });
      expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'done' });
      await until(async () => released.length === 1, 'the reservation released');
      // Released only after the usage was committed: never counted by neither.
      expect(await stored(runId)).toEqual({ state: 'completed', steps: [0, 1], usage: 1 });
      expect(rides.stateOf(runId)).toBeUndefined();
    } finally {
      await runtime.dispose();
    }
  });

  it('rolls the job write back when another execution wrote the run first, polls the stored outcome and counts the call', async () => {
    const { provider, database } = fixture();
    provider.enqueue({ kind: 'answer', content: 'mine', usage: { prompt_tokens: 11, completion_tokens: 2 } });
    const rides = openRunRides(database, CLOCK, 60_000);
    const runtime = runtimeOver(fixture(), { rides });
    const ctx = context('job_3', openAiAgent());
    try {
      const { runId } = await runtime.start({ runKey: 'job_3', input: requestInput('job_3', 'Go'), context: ctx });
      expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'mine' });
      // Another execution (a replay on a claim) wrote the run and ended it first.
      await database.db
        .insertInto('runtime_runs')
        .values({
          run_key: 'job_3',
          run_id: runId,
          runtime: 'openai',
          conversation_id: 'conversation_1',
          job_id: 'job_3',
          state: 'failed',
          state_json: JSON.stringify({ outcome: { state: 'failed', error: 'theirs' } }),
          created_at: NOW,
          updated_at: NOW,
        })
        .execute();
      const withRides = { db: database.db, dialect: database.dialect, sink: null, ids: null, rides };
      await expect(runWrite(withRides, NOW, (scope) => scope.carryRide(runId))).rejects.toBeInstanceOf(RideLostError);
      // The run and its outcome are the other execution's; the call this one made was billed all
      // the same, so its usage is written alone once the offer is found lost.
      await until(async () => (await stored(runId)).usage === 1, 'the lost answer usage');
      expect(await stored(runId)).toEqual({ state: 'failed', steps: [], usage: 1 });
      const rows = await database.db
        .selectFrom('model_usage')
        .select(['job_id', 'input_tokens', 'output_tokens'])
        .execute();
      expect(rows).toEqual([{ job_id: 'job_3', input_tokens: 11, output_tokens: 2 }]);
      await until(
        async () => (await runtime.poll({ runId: asRunId(runId), context: ctx })).state === 'failed',
        'the stored outcome',
      );
    } finally {
      await runtime.dispose();
    }
  });

  it('a ride no job write takes is written alone after its wait', async () => {
    const { provider, database } = fixture();
    provider.enqueue({ kind: 'answer', content: 'done' });
    const rides = openRunRides(database, CLOCK, 20);
    const runtime = runtimeOver(fixture(), { rides });
    const ctx = context('job_4', openAiAgent());
    try {
      const { runId } = await runtime.start({ runKey: 'job_4', input: requestInput('job_4', 'Go'), context: ctx });
      expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'done' });
      await until(async () => (await stored(runId)).state === 'completed', 'the run written alone');
      expect(await stored(runId)).toEqual({ state: 'completed', steps: [0, 1], usage: 1 });
    } finally {
      await runtime.dispose();
    }
  });

  it(`counts the call of a ride dropped after its writes failed ${RIDE_MAX_FAILURES} times`, async () => {
    const { provider, database, logger } = fixture();
    provider.enqueue({ kind: 'answer', content: 'never stored', usage: { prompt_tokens: 5, completion_tokens: 3 } });
    // The rides' own writes fail (as a full disk would); the usage row alone still goes in.
    const failing: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'openai_messages') {
          throw new Error('disk full');
        }
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const rides = openRunRides({ db: database.db.withPlugin(failing), dialect: database.dialect }, CLOCK, 5, logger);
    const runtime = runtimeOver(fixture(), { rides });
    const ctx = context('job_5', openAiAgent());
    try {
      const { runId } = await runtime.start({ runKey: 'job_5', input: requestInput('job_5', 'Go'), context: ctx });
      await until(async () => (await stored(runId)).usage === 1, 'the dropped ride usage');
      // Nothing of the run was written: it replays from what is stored (its job still unfinished).
      expect(await stored(runId)).toEqual({ state: null, steps: [], usage: 1 });
      const rows = await database.db.selectFrom('model_usage').select(['input_tokens', 'output_tokens']).execute();
      expect(rows).toEqual([{ input_tokens: 5, output_tokens: 3 }]);
      expect(logger.at('error').map((entry) => entry.message)).toContain(
        'a run end could not be written; it is dropped and the run replays from what is stored',
      );
    } finally {
      await runtime.dispose();
    }
  });

  it("writes a first answer's run row ended and its messages in one insert per table, each stamped as before", () =>
    checkFirstAnswerRide(fixture()));
});
