// PostgreSQL: an enqueue sends its reads (the roster, the request count and the stored jobs of its
// keys) right behind its team's lock, before the lock's answer comes (`readEnqueueSnapshot`), so
// all go in one round trip. The server runs them once the lock is held: a change committed by the
// lock's previous holder is what they read, never the state before it.
import { asOwnerId, DomainError, ErrorCode, JobPhase } from '@agent-teams/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/create-app.js';
import { waitFor } from '../scheduler/scheduler-harness.js';
import type { FreshPostgres } from '../support/fresh-postgres.js';
import { type RoundTripRecorder, tripsOf } from '../support/pg-round-trips.js';
import { openRecordedPostgresApp, type RecordedPostgresApp, teamOfTwo } from '../support/recorded-postgres-app.js';

const ALICE = asOwnerId('alice');
const BOB = asOwnerId('bob');

let db: FreshPostgres;
let app: App;
let trips: RoundTripRecorder;
let locker: pg.Client;
let opened: RecordedPostgresApp | undefined;

beforeAll(async () => {
  opened = await openRecordedPostgresApp('agent_teams_enqueue_reads', 'srv_enqueue_reads');
  ({ db, app, trips } = opened);
  locker = new pg.Client({ connectionString: db.url });
  await locker.connect();
}, 60_000);
afterAll(async () => {
  await locker?.end();
  await opened?.close();
});

/** True once a backend of the test's database waits for a row lock. */
async function someoneWaitsForALock(): Promise<boolean> {
  const { rows } = await locker.query(
    "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
  );
  return (rows[0] as { n: number }).n > 0;
}

describe('an enqueue on PostgreSQL, its reads behind its lock', () => {
  it('sends the lock, the roster and the snapshot in the BEGIN’s round trip', async () => {
    const { team, memberIds } = await teamOfTwo(app, ALICE, 'trips');
    const since = trips.mark();
    const [job] = await app.core.requests.send(ALICE, {
      teamId: team.id,
      memberIds: [memberIds[0]],
      text: 'Instant answer',
      clientRequestId: 'r-trips',
    });
    const enqueue = trips
      .transactions(since)
      .find((t) => t.some((s) => /^insert into "jobs"/.test(s.text)) && t.some((s) => /"snapshot__n"/.test(s.text)));
    if (enqueue === undefined) throw new Error('no enqueue transaction recorded');
    const tripOf = (pattern: RegExp) => enqueue.find((s) => pattern.test(s.text))?.trip;
    const begin = tripOf(/^begin$/i);
    expect(begin).toBeDefined();
    expect(tripOf(/^select \* from "teams" where "id" = \$1 for update$/)).toBe(begin);
    expect(tripOf(/^select \* from "members"/)).toBe(begin);
    expect(tripOf(/"snapshot__n"/)).toBe(begin);
    // With the admission riding it (decisions 0254–0257): the lock with its reads; the insert,
    // its record, the events, the savepoint, the planning lock and the candidates; the freeze's
    // locked read; the admission's writes with the COMMIT.
    expect(enqueue.some((s) => /^SAVEPOINT admission_ride$/.test(s.text))).toBe(true);
    expect(tripOf(/^insert into "jobs"/)).toBe((begin ?? 0) + 1);
    expect(tripOf(/^SAVEPOINT admission_ride$/)).toBe((begin ?? 0) + 1);
    expect(tripsOf(enqueue)).toBe(4);
    if (job === undefined) throw new Error('nothing enqueued');
    await waitFor(async () => (await app.store.findJobs([job.id]))[0]?.phase === JobPhase.COMPLETED, 'done');
  });

  it('reads the roster its lock’s previous holder committed: a member retired meanwhile is refused', async () => {
    const { team, memberIds } = await teamOfTwo(app, ALICE, 'retired');
    const [kept, retired] = memberIds;
    await locker.query('BEGIN');
    await locker.query('select id from teams where id = $1 for update', [team.id]);
    const sending = app.core.requests.send(ALICE, {
      teamId: team.id,
      memberIds: [retired],
      text: 'Instant answer',
      clientRequestId: 'r-retired',
    });
    sending.catch(() => undefined);
    await waitFor(someoneWaitsForALock, 'the send waits for the team lock');
    await locker.query('update members set retired_at = $1 where id = $2', [new Date().toISOString(), retired]);
    await locker.query('COMMIT');
    const refused = await sending.then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe(ErrorCode.MEMBER_RETIRED);
    // Nothing was enqueued for it; the other member still takes requests.
    expect(await app.store.countJobs(team.id)).toEqual({ requests: 0, receipts: 0 });
    const [job] = await app.core.requests.send(ALICE, {
      teamId: team.id,
      memberIds: [kept],
      text: 'Instant answer',
      clientRequestId: 'r-kept',
    });
    expect(job?.memberId).toBe(kept);
  });

  it('answers NOT_FOUND for another owner’s team, its reads dropped, and the next write goes through', async () => {
    const { team, memberIds } = await teamOfTwo(app, BOB, 'other');
    const refused = await app.core.requests
      .send(ALICE, { teamId: team.id, memberIds: [memberIds[0]], text: 'Hi', clientRequestId: 'r-x' })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect((refused as DomainError).code).toBe(ErrorCode.NOT_FOUND);
    const [job] = await app.core.requests.send(BOB, {
      teamId: team.id,
      memberIds: [memberIds[0]],
      text: 'Instant answer',
      clientRequestId: 'r-bob',
    });
    expect(job?.teamId).toBe(team.id);
  });
});

describe('an enqueue on PostgreSQL with no admission riding it', () => {
  let alone: RecordedPostgresApp | undefined;
  beforeAll(async () => {
    // Unstarted: its scheduler offers no ride, so each send commits alone.
    alone = await openRecordedPostgresApp('agent_teams_enqueue_alone', 'srv_enqueue_alone', { start: false });
  }, 60_000);
  afterAll(async () => {
    await alone?.close();
  });

  it('sends its COMMIT behind its inserts, records and events: two round trips, the jobs answered as stored', async () => {
    if (alone === undefined) throw new Error('no application');
    const { team, memberIds } = await teamOfTwo(alone.app, ALICE, 'alone');
    const since = alone.trips.mark();
    const jobs = await alone.app.core.requests.send(ALICE, {
      teamId: team.id,
      memberIds,
      text: 'Instant answer',
      clientRequestId: 'r-alone',
    });
    const enqueue = alone.trips
      .transactions(since)
      .find((t) => t.some((s) => /^insert into "jobs"/.test(s.text)) && t.some((s) => /"snapshot__n"/.test(s.text)));
    if (enqueue === undefined) throw new Error('no enqueue transaction recorded');
    expect(enqueue.some((s) => /^SAVEPOINT/.test(s.text))).toBe(false);
    const inserts = enqueue.filter((s) => /^insert into "jobs"/.test(s.text));
    expect(inserts).toHaveLength(2);
    // The lock with its reads; the inserts, their records, the events and the COMMIT (decision 0257).
    const commit = enqueue.find((s) => /^commit$/i.test(s.text));
    for (const insert of inserts) expect(insert.trip).toBe(commit?.trip);
    expect(tripsOf(enqueue)).toBe(2);
    // Answered with the seqs the inserts returned, as stored.
    const stored = await alone.app.store.findJobs(jobs.map((job) => job.id));
    expect(jobs.map((job) => job.seq)).toEqual(jobs.map((job) => stored.find((s) => s.id === job.id)?.seq));
    expect(jobs.every((job) => job.phase === JobPhase.QUEUED && job.seq > 0)).toBe(true);
  });
});
