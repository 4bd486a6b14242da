import { JobPhase } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../scheduler/scheduler-harness.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { type RoundTripRecorder, recordRoundTrips, tripsOf } from '../support/pg-round-trips.js';
import { openTeamHarness, type TeamHarness } from './openai-team-harness.js';

// An OpenAI turn's end on PostgreSQL: the job's completion carries the run's row, its messages and
// its usage, all left to the server (`rideWritesLeft`, decision 0252), so the COMMIT goes with them.

let pg: FreshPostgres;
let harness: TeamHarness;
let trips: RoundTripRecorder;
beforeAll(async () => {
  pg = await createFreshPostgres('agent_teams_openai_trips');
  trips = recordRoundTrips();
  // A minute: the run's end then waits for its job's write even on a loaded machine (the default
  // second passed under CI's load once, and the run's end was written alone).
  harness = await openTeamHarness({ database: pg.url, rideWaitMs: 60_000 });
}, 60_000);
afterAll(async () => {
  trips?.stop();
  await harness?.close();
  await pg?.drop();
});

describe('an OpenAI turn on PostgreSQL', () => {
  it("writes the run's end in two round trips: the lock with its BEGIN; the job's writes, the run's row, messages and usage, the events and the COMMIT", async () => {
    const { team, lead } = await harness.team();
    harness.provider.enqueue({ kind: 'answer', content: 'done', usage: { prompt_tokens: 10, completion_tokens: 2 } });
    const since = trips.mark();
    const job = await harness.send(team, lead, 'Go');
    await waitFor(async () => (await harness.job(job.id)).phase === JobPhase.COMPLETED, 'the turn completed');
    // The job write that carries the run's end: its completion, or, when the run ended before
    // the job's start was acknowledged (a loaded machine), that acknowledgement (decision 0221).
    const completion = trips
      .transactions(since)
      .find(
        (t) =>
          t.some((s) => /insert into "model_usage"/.test(s.text)) &&
          t.some((s) => /^with "written" as \(update "jobs"/.test(s.text)),
      );
    if (completion === undefined) throw new Error('no job write carrying the run recorded');
    expect(completion.some((s) => /insert into "openai_messages"/.test(s.text))).toBe(true);
    expect(completion.some((s) => /update "runtime_runs"|insert into "runtime_runs"/.test(s.text))).toBe(true);
    // Five while the run's row and messages were awaited (a lost ride decided in Node), and the usage.
    expect(tripsOf(completion)).toBe(2);
    expect(completion.at(-1)?.text).toBe('commit');
  });
});
