import { asConversationId, asJobId } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunTable } from '../../src/runtimes/durable/run-table.js';
import { writeMessageBatches } from '../../src/runtimes/openai/openai-messages.js';
import { openRunRides } from '../../src/storage/open-run-rides.js';
import { RideLostError, type RideWrite } from '../../src/storage/run-rides.js';
import { runWrite, type StoreContext } from '../../src/storage/write-transaction.js';
import { heldOf, insertProbe, openProbeDatabase, type ProbeDatabase, storedProbe } from '../support/pg-probe.js';
import { tripsOf } from '../support/pg-round-trips.js';
import { CLOCK, COMPLETED, NOW, runKeys } from './run-rides-fixture.js';

// A run's end carried by a job write on PostgreSQL (`rideWritesLeft`): the run table's
// conditional writes are left to the server, so the COMMIT goes with them; a run another
// execution ended first is refused there, and the job write fails as a lost ride.

let probe: ProbeDatabase;
beforeAll(async () => {
  probe = await openProbeDatabase('agent_teams_left_rides');
}, 60_000);
afterAll(() => probe?.close());

/** A scripted run's end as its runtime writes it: the run's row inserted, already ended. */
function insertEnded(runKey: string): RideWrite {
  const runs = new RunTable<Record<string, never>>(probe.database.db);
  return (trx, now) =>
    runs.insert(
      {
        runKey,
        runId: `run_${runKey}`,
        runtime: 'scripted',
        conversationId: 'conv_1',
        jobId: null,
        state: 'completed',
        document: {},
        now,
      },
      trx,
    );
}

/** A job write of the scheduler (decided on the announced end): a probe row, and the ride of `runId`. */
function jobWrite(ctx: StoreContext, probeId: string, runId: string): Promise<boolean> {
  return runWrite(ctx, NOW, async (scope) => {
    await heldOf(scope).run('select 1', []);
    await insertProbe(scope, probeId, 1, true);
    return scope.carryRide(runId, true);
  });
}

describe("a run's end carried by a job write, left to the server (PostgreSQL)", () => {
  it('goes with the COMMIT in one round trip, and commits with the job write', async () => {
    const rides = openRunRides({ db: probe.database.db, dialect: 'postgres' }, CLOCK, 60_000);
    const ctx: StoreContext = { ...probe.ctx, rides };
    const ended = rides.offer('run_a', COMPLETED, insertEnded('a'));
    const since = probe.trips.mark();
    expect(await jobWrite(ctx, 'job-a', 'run_a')).toBe(true);
    expect(await ended).toBe(true);
    expect(await runKeys(probe.database.db)).toContain('a');
    expect(await storedProbe(probe.database, 'job-a')).toBe(1);
    const [transaction] = probe.trips.transactions(since);
    if (transaction === undefined) throw new Error('no transaction recorded');
    // BEGIN with its read; the probe, the run's row (checked by the server) and the COMMIT.
    expect(transaction.map((s) => s.text.slice(0, 40))).toEqual([
      'begin',
      'select 1',
      'insert into probe (id, n) values ($1, $2',
      'with "written" as (insert into "runtime_',
      'commit',
    ]);
    expect(tripsOf(transaction)).toBe(2);
  });

  it('fails as a lost ride, committing nothing, when another execution ended the run first', async () => {
    const rides = openRunRides({ db: probe.database.db, dialect: 'postgres' }, CLOCK, 60_000);
    const ctx: StoreContext = { ...probe.ctx, rides };
    await insertEnded('b')(probe.database.db, NOW); // another execution's end, written alone
    const ended = rides.offer('run_b', COMPLETED, insertEnded('b'));
    // Awaited, the insert found the row and the ride threw at once; left, the server refuses it.
    await expect(jobWrite(ctx, 'job-b', 'run_b')).rejects.toBeInstanceOf(RideLostError);
    expect(await ended).toBe(false);
    expect(rides.stateOf('run_b')).toBeUndefined();
    expect(await storedProbe(probe.database, 'job-b')).toBeUndefined();
    // The scheduler's next write, decided on what is stored, goes through without it.
    expect(await jobWrite(ctx, 'job-b2', 'run_b')).toBe(false);
    expect(await storedProbe(probe.database, 'job-b2')).toBe(1);
  });

  it("fails as a lost ride when another execution wrote the run's step first (the OpenAI runtime's messages)", async () => {
    const rides = openRunRides({ db: probe.database.db, dialect: 'postgres' }, CLOCK, 60_000);
    const ctx: StoreContext = { ...probe.ctx, rides };
    const answer = (text: string) => [
      { role: 'assistant' as const, content: text, toolCalls: null, toolCallId: null, toolName: null },
    ];
    const step =
      (text: string): RideWrite =>
      (trx, now) =>
        writeMessageBatches(
          trx,
          'run_c',
          asConversationId('conv_c'),
          asJobId('job_c'),
          [{ firstStep: 0, messages: answer(text), now }],
          true,
        );
    // Another execution's step 0, written alone (awaited: nothing refused, it went in).
    expect(await runWrite(probe.ctx, NOW, ({ trx }) => step('theirs')(trx, NOW))).toBe(true);
    const ended = rides.offer('run_c', COMPLETED, step('mine'));
    const since = probe.trips.mark();
    await expect(jobWrite(ctx, 'job-c', 'run_c')).rejects.toBeInstanceOf(RideLostError);
    // Left to the server (a checked statement, not awaited), and the COMMIT went with it.
    const [transaction] = probe.trips.transactions(since);
    const messages = transaction?.find((s) => s.text.startsWith('with "written" as (insert into "openai_messages"'));
    expect(messages?.trip).toBe(transaction?.at(-1)?.trip);
    expect(await ended).toBe(false);
    expect(await storedProbe(probe.database, 'job-c')).toBeUndefined();
    const stored = await probe.database.db
      .selectFrom('openai_messages')
      .select('content')
      .where('run_id', '=', 'run_c')
      .execute();
    expect(stored.map((row) => row.content)).toEqual(['theirs']);
  });

  it("fails as a lost ride when the run's row is no longer running (its move refused by the server)", async () => {
    const rides = openRunRides({ db: probe.database.db, dialect: 'postgres' }, CLOCK, 60_000);
    const ctx: StoreContext = { ...probe.ctx, rides };
    const runs = new RunTable<{ by: string }>(probe.database.db);
    const base = { runtime: 'scripted', conversationId: 'conv_d', jobId: null, now: NOW };
    await runs.insert({ ...base, runKey: 'd', runId: 'run_d', state: 'running', document: { by: 'start' } });
    // Another execution moved it first (a cancel).
    expect(await runs.transition('run_d', 'running', 'cancelled', { by: 'theirs' }, NOW)).toBe(true);
    const ended = rides.offer('run_d', COMPLETED, (trx, now) =>
      runs.transition('run_d', 'running', 'completed', { by: 'mine' }, now, trx),
    );
    await expect(jobWrite(ctx, 'job-d', 'run_d')).rejects.toBeInstanceOf(RideLostError);
    expect(await ended).toBe(false);
    expect(await storedProbe(probe.database, 'job-d')).toBeUndefined();
    expect((await runs.findById('run_d'))?.state).toBe('cancelled');
    // A move that finds its row running commits with the job write, in the COMMIT's round trip.
    await runs.insert({ ...base, runKey: 'e', runId: 'run_e', state: 'running', document: { by: 'start' } });
    const moved = rides.offer('run_e', COMPLETED, (trx, now) =>
      runs.transition('run_e', 'running', 'completed', { by: 'mine' }, now, trx),
    );
    expect(await jobWrite(ctx, 'job-e', 'run_e')).toBe(true);
    expect(await moved).toBe(true);
    expect((await runs.findById('run_e'))?.state).toBe('completed');
  });
});
