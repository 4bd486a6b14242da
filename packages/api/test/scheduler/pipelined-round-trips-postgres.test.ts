import { asOwnerId, JobPhase } from '@agent-teams/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/create-app.js';
import { type RoundTripRecorder, type SentStatement, tripsOf } from '../support/pg-round-trips.js';
import { openRecordedPostgresApp, type RecordedPostgresApp, teamOfTwo } from '../support/recorded-postgres-app.js';
import { waitFor } from './scheduler-harness.js';

/** The admission's candidates: walked by owner (decision 0260) or scanned by conversation (decision 0228). */
const CANDIDATES = /^with recursive "c"|^select "h"\."id", "h"\."owner"/;

// The round trips of a job's writes on PostgreSQL with a pipelining pool (`pg-pipeline.ts`,
// `pg-held-connection.ts`): what each transaction waits for, statement by statement.

const ALICE = asOwnerId('alice');

let app: App;
let trips: RoundTripRecorder;
let opened: RecordedPostgresApp | undefined;

beforeAll(async () => {
  // A minute: a run's end waits for its job's write even on a loaded machine (RIDE_WAIT_MS is 1 s).
  opened = await openRecordedPostgresApp('agent_teams_pipelined', 'srv_pipelined', { rideWaitMs: 60_000 });
  ({ app, trips } = opened);
}, 60_000);
afterAll(async () => {
  await opened?.close();
});

const has = (transaction: readonly SentStatement[], pattern: RegExp) => transaction.some((s) => pattern.test(s.text));

/** Three requests in one send, to a team of three, and the transactions until all completed. */
async function sendToThree(tag: string): Promise<SentStatement[][]> {
  const members = [0, 1, 2].map((i) => ({ name: `m${i}`, agentId: 'researcher' }));
  const team = await app.core.teams.create(ALICE, { clientRequestId: `t-${tag}`, name: tag, goal: 'Test', members });
  const memberIds = (await app.core.teams.members([team.id])).map((member) => member.id);
  await app.scheduler?.idle();
  const since = trips.mark();
  const jobs = await app.core.requests.send(ALICE, {
    teamId: team.id,
    memberIds,
    text: 'Instant answer',
    clientRequestId: `r-${tag}`,
  });
  await waitFor(
    async () => (await app.store.findJobs(jobs.map((job) => job.id))).every((job) => job.phase === JobPhase.COMPLETED),
    'all three completed',
  );
  await app.scheduler?.idle();
  return trips.transactions(since);
}

describe('a job on PostgreSQL, pipelined', () => {
  it("completes in two round trips: the lock with its BEGIN; the job's writes, the run's end, the events and the COMMIT", async () => {
    const transactions = await sendToThree('complete');
    const completions = transactions.filter(
      (t) => has(t, /^insert into "conversation_messages"/) && has(t, /update "jobs" set .*"finished_at"/),
    );
    // A run's end not carried by its job's write in time is written alone: at least one is.
    expect(completions.length).toBeGreaterThanOrEqual(1);
    for (const completion of completions) {
      // Awaited one by one, as before: BEGIN, lock, update, record, run, conversation, events, COMMIT.
      expect(completion.length).toBeGreaterThanOrEqual(8);
      // Four before the server checked what is sent and left (the COMMIT waited for their
      // answers), three while the run's row was awaited (a lost ride decided in Node).
      expect(tripsOf(completion)).toBeLessThanOrEqual(2);
      // The COMMIT went with the events, in the last round trip.
      const commit = completion.at(-1);
      const events = completion.find((s) => /update teams set last_event_seq/.test(s.text));
      expect(commit?.text).toBe('commit');
      expect(events?.trip).toBe(commit?.trip);
    }
  });

  it("sends each admitted job's lease with the statement after it: its fence is known under the lock", async () => {
    const transactions = await sendToThree('admit');
    const leases = transactions.flatMap((t) =>
      t.flatMap((statement, index) =>
        /"lease_fence" = "lease_fence" \+ (\$\d+|1)\b/.test(statement.text) ? [{ statement, next: t[index + 1] }] : [],
      ),
    );
    expect(leases).toHaveLength(3);
    // Every job's locked read went before the first answer (decision 0258), so each lease goes
    // with the next job's and the last with the COMMIT: the three in one round trip.
    for (const { statement, next } of leases) expect(next?.trip).toBe(statement.trip);
    expect(new Set(leases.map(({ statement }) => statement.trip)).size).toBe(1);
  });

  it('asks a pass’s candidates with its planning lock and active jobs: one round trip (decision 0256)', async () => {
    const locker = new pg.Client({ connectionString: opened?.db.url });
    await locker.connect();
    try {
      const { team, memberIds } = await teamOfTwo(app, ALICE, 'pass');
      // The planning lock held elsewhere: the send's ride is skipped, and the pass its events wake waits.
      await locker.query('BEGIN');
      await locker.query('select round_json from scheduler_state where id = 1 for update');
      const since = trips.mark();
      const [job] = await app.core.requests.send(ALICE, {
        teamId: team.id,
        memberIds: [memberIds[0]],
        text: 'Instant answer',
        clientRequestId: 'r-pass',
      });
      if (job === undefined) throw new Error('nothing enqueued');
      await locker.query('COMMIT');
      await waitFor(async () => (await app.store.findJobs([job.id]))[0]?.phase === JobPhase.COMPLETED, 'done');
      const admitting = trips
        .transactions(since)
        .filter((t) => has(t, /^select "round_json" from "scheduler_state" where "id" = \$1 for update$/))
        .filter((t) => has(t, CANDIDATES));
      expect(admitting.length).toBeGreaterThanOrEqual(1);
      for (const pass of admitting) {
        const lock = pass.find((s) => /^select "round_json" from "scheduler_state" .* for update$/.test(s.text));
        const candidates = pass.find((s) => CANDIDATES.test(s.text));
        expect(candidates?.trip).toBe(lock?.trip);
      }
    } finally {
      await locker.end();
    }
  });

  it('sends a pass’s locked reads of every job it admits before the first answer (decision 0258)', async () => {
    const locker = new pg.Client({ connectionString: opened?.db.url });
    await locker.connect();
    try {
      // The planning lock held elsewhere: the send's ride is skipped, and the pass its events wake
      // admits the three jobs once the lock is free.
      await locker.query('BEGIN');
      await locker.query('select round_json from scheduler_state where id = 1 for update');
      const sent = sendToThree('pass-three');
      await waitFor(async () => {
        const { rows } = await locker.query("select count(*)::int as n from jobs where phase = 'QUEUED'");
        return (rows[0] as { n: number }).n === 3;
      }, 'three queued');
      await locker.query('COMMIT');
      const pass = (await sent).find(
        (t) =>
          has(t, /^select "round_json" from "scheduler_state" where "id" = \$1 for update$/) && has(t, /^commit$/i),
      );
      if (pass === undefined) throw new Error('no pass recorded');
      const locked = pass.filter((s) => /^with "locked_team" as materialized/.test(s.text));
      expect(locked).toHaveLength(3);
      expect(new Set(locked.map((s) => s.trip)).size).toBe(1);
      // The planning lock with its reads; the locked reads; the writes with the COMMIT.
      expect(tripsOf(pass)).toBe(3);
    } finally {
      await locker.end();
    }
  });

  it('rides an enqueue with its reads paired: the roster with the snapshot; the inserts with the records, the events, the savepoint, the planning lock and the active jobs', async () => {
    const transactions = await sendToThree('ride');
    const ride = transactions.find((t) => has(t, /^SAVEPOINT admission_ride$/));
    if (ride === undefined) throw new Error('the send did not ride');
    const tripOf = (pattern: RegExp) => {
      const found = ride.find((statement) => pattern.test(statement.text));
      if (found === undefined) throw new Error(`no statement ${pattern}`);
      return found.trip;
    };
    expect(tripOf(/^select \* from "members"/)).toBe(tripOf(/"snapshot__n"/));
    // The three jobs' inserts are not waited for one by one (decision 0255): one round trip.
    const inserts = ride.filter((statement) => /^insert into "jobs"/.test(statement.text));
    expect(inserts).toHaveLength(3);
    expect(new Set(inserts.map((statement) => statement.trip)).size).toBe(1);
    const planning = tripOf(/^select "round_json" from "scheduler_state" .* for update skip locked$/);
    expect(tripOf(/^SAVEPOINT admission_ride$/)).toBe(planning);
    expect(tripOf(/^select "owner", count\(\*\)/)).toBe(planning);
    // The candidates are asked with them, before their answers (decision 0256).
    expect(tripOf(CANDIDATES)).toBe(planning);
    // The enqueue's inserts, records and events are not waited for before the savepoint (their
    // failure aborts the transaction, and no savepoint is then taken to roll back to): the
    // inserts' answers come with the planning lock's (decision 0257). One round trip.
    expect(tripOf(/^with t as \( update teams set last_event_seq/)).toBe(planning);
    const records = ride.filter((statement) =>
      /^with "appended" as \(insert into "record_messages"/.test(statement.text),
    );
    expect(records).toHaveLength(3);
    for (const record of records) expect(record.trip).toBe(planning);
    expect(inserts[0]?.trip).toBe(planning);
    expect(planning).toBe(tripOf(/^begin$/i) + 1);
    // The three jobs' locked reads go together once the candidates answered (decision 0258).
    const locked = ride.filter((statement) => /^select \*, \(select coalesce\(json_agg\(m /.test(statement.text));
    expect(locked.map((statement) => statement.trip)).toEqual([planning + 1, planning + 1, planning + 1]);
    // The admission's writes go with the COMMIT (decision 0254), none waited for.
    const savepoint = ride.findIndex((statement) => /^SAVEPOINT admission_ride$/.test(statement.text));
    const updates = ride
      .slice(savepoint)
      .filter((statement) => /^with "written" as \(update "jobs"/.test(statement.text));
    expect(updates.map((statement) => statement.trip)).toEqual([planning + 2, planning + 2, planning + 2]);
    expect(tripOf(/^commit$/)).toBe(planning + 2);
    // The lock with its reads; the inserts, records and events with the planning lock and the
    // candidates; the three locked reads; the three jobs' writes with the COMMIT.
    expect(tripsOf(ride)).toBe(4);
  });
});
