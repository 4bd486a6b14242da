// PostgreSQL: the writes of an admission riding an enqueue go with the enqueue's COMMIT, not
// waited for before it (decision 0254). When one of them fails, the whole transaction is rolled
// back, the enqueue too: the enqueue then runs again without the ride, its request is answered as
// queued, and a scheduler pass admits it. A trigger makes the ride's update of the job fail once;
// another makes a send's first job insert fail once, left unawaited behind the next (decision 0255).
import { asOwnerId, JobPhase, type MemberId, type TeamId } from '@agent-teams/core';
import type { MemoryLogger } from '@agent-teams/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/create-app.js';
import type { FreshPostgres } from '../support/fresh-postgres.js';
import type { RoundTripRecorder } from '../support/pg-round-trips.js';
import { openRecordedPostgresApp, type RecordedPostgresApp, teamOfTwo } from '../support/recorded-postgres-app.js';
import { waitFor } from './scheduler-harness.js';

const ALICE = asOwnerId('alice');
const FAILING = 'Fail the ride, then answer';
const FAILING_INSERT = 'Fail the first insert, then answer';

let db: FreshPostgres;
let app: App & { readonly logger: MemoryLogger };
let trips: RoundTripRecorder;
let admin: pg.Client;
let opened: RecordedPostgresApp | undefined;

beforeAll(async () => {
  // Ten minutes: only the wake-up of the enqueue's events can admit within the test.
  opened = await openRecordedPostgresApp('agent_teams_ride_left', 'srv_ride_left', {
    scheduler: { safetyNetMs: 600_000 },
  });
  ({ db, app, trips } = opened);
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  // A sequence is not rolled back with the transaction that drew from it: the first admission of
  // such a job fails, every later one passes.
  await admin.query(`
    create sequence ride_fail_once;
    create function fail_ride_once() returns trigger language plpgsql as $$
    begin
      if old.phase = 'QUEUED' and new.phase <> 'QUEUED' and new.text = '${FAILING}'
        and nextval('ride_fail_once') = 1 then
        raise exception 'the ridden admission fails here, once';
      end if;
      return new;
    end $$;
    create trigger fail_ride_once before update on jobs for each row execute function fail_ride_once();
    create sequence insert_fail_once;
    create function fail_insert_once() returns trigger language plpgsql as $$
    begin
      if new.text = '${FAILING_INSERT}' and nextval('insert_fail_once') = 1 then
        raise exception using errcode = 'unique_violation', message = 'another server inserted it first';
      end if;
      return new;
    end $$;
    create trigger fail_insert_once before insert on jobs for each row execute function fail_insert_once();`);
}, 60_000);
/** The enqueue transactions recorded since `since` (each attempt of a send), in order. */
function enqueueAttempts(since: number) {
  return trips
    .transactions(since)
    .filter((t) => t.some((s) => /^insert into "jobs"/.test(s.text)) && t.some((s) => /"snapshot__n"/.test(s.text)));
}

/** Sends {@link FAILING_INSERT} to `memberIds`: the jobs answered and the enqueue's attempts. */
async function sendFailingInsert(teamId: TeamId, memberIds: readonly MemberId[], clientRequestId: string) {
  const since = trips.mark();
  const jobs = await app.core.requests.send(ALICE, { teamId, memberIds, text: FAILING_INSERT, clientRequestId });
  return { jobs, enqueues: enqueueAttempts(since) };
}

afterAll(async () => {
  await admin?.end();
  await opened?.close();
});

describe('a ridden admission whose left write fails at the COMMIT', () => {
  it('runs the enqueue again without the ride: the request is answered queued, then admitted by a pass', async () => {
    const { team, memberIds } = await teamOfTwo(app, ALICE, 'ride-left');
    const since = trips.mark();
    const [job] = await app.core.requests.send(ALICE, {
      teamId: team.id,
      memberIds: [memberIds[0]],
      text: FAILING,
      clientRequestId: 'r-ride-left',
    });
    if (job === undefined) throw new Error('nothing enqueued');
    // Answered by the second attempt, which ran alone.
    expect(job.phase).toBe(JobPhase.QUEUED);
    const enqueues = enqueueAttempts(since);
    expect(enqueues.map((t) => t.some((s) => /^SAVEPOINT admission_ride$/.test(s.text)))).toEqual([true, false]);
    await waitFor(async () => (await app.store.findJobs([job.id]))[0]?.phase === JobPhase.COMPLETED, 'admitted, done');
    // One job, once, and one request record: the rolled-back attempt left nothing behind.
    expect(await app.store.countJobs(team.id)).toEqual({ requests: 1, receipts: 0 });
    const records = await admin.query(
      "select count(*)::int as n from record_messages where kind = 'REQUEST' and job_id = $1",
      [job.id],
    );
    expect((records.rows[0] as { n: number }).n).toBe(1);
    // The ride failed once (the trigger), the pass's admission passed (a second draw).
    const { rows } = await admin.query('select last_value::int as n from ride_fail_once');
    expect((rows[0] as { n: number }).n).toBe(2);
    // The scheduler heard of the ride's failure, as of one rolled back to its savepoint: the job's
    // own failure, set aside (decision 0248), not lost with the rolled-back attempt.
    const setAside = app.logger.at('error').filter((entry) => /set aside/.test(entry.message));
    expect(setAside.map((entry) => entry.fields.jobId)).toEqual([job.id]);
  });

  it('retries a send whose first left insert failed as a unique violation, not as the aborted statements after it', async () => {
    const { team, memberIds } = await teamOfTwo(app, ALICE, 'insert-left');
    // Two members: the first job's insert fails, and the second's insert and both records, sent
    // behind it before its answer (decision 0255), fail because the transaction is aborted.
    const { jobs, enqueues } = await sendFailingInsert(team.id, memberIds, 'r-insert-left');
    expect(jobs.map((job) => job.memberId)).toEqual(memberIds);
    // The first attempt sent both inserts in one round trip, and was retried.
    expect(enqueues.length).toBeGreaterThanOrEqual(2);
    const first = enqueues[0]?.filter((s) => /^insert into "jobs"/.test(s.text)) ?? [];
    expect(first).toHaveLength(2);
    expect(first[1]?.trip).toBe(first[0]?.trip);
    // The ridden admission's savepoint and planning lock followed them before their answers
    // (decision 0257), and failed as aborted: the insert's unique violation is what was retried.
    const savepoint = enqueues[0]?.find((s) => /^SAVEPOINT admission_ride$/.test(s.text));
    expect(savepoint?.trip).toBe(first[0]?.trip);
    expect(await app.store.countJobs(team.id)).toEqual({ requests: 2, receipts: 0 });
    const { rows } = await admin.query('select last_value::int as n from insert_fail_once');
    expect((rows[0] as { n: number }).n).toBeGreaterThanOrEqual(2);
  });

  // Last: it stops the scheduler, so no admission rides and the COMMIT follows the inserts.
  it('retries a send that commits alone when its first insert failed, the COMMIT sent behind it', async () => {
    const { team, memberIds } = await teamOfTwo(app, ALICE, 'insert-alone');
    await app.scheduler?.stop();
    await admin.query('alter sequence insert_fail_once restart');
    const { jobs, enqueues } = await sendFailingInsert(team.id, memberIds, 'r-insert-alone');
    expect(jobs.map((job) => [job.memberId, job.phase])).toEqual(memberIds.map((id) => [id, JobPhase.QUEUED]));
    expect(enqueues.length).toBeGreaterThanOrEqual(2);
    // The first attempt's COMMIT went with its inserts (decision 0257) and answered ROLLBACK: the
    // insert's unique violation, not the COMMIT's, is what was retried.
    const first = enqueues[0] ?? [];
    expect(first.some((s) => /^SAVEPOINT/.test(s.text))).toBe(false);
    const insert = first.find((s) => /^insert into "jobs"/.test(s.text));
    expect(first.find((s) => /^commit$/i.test(s.text))?.trip).toBe(insert?.trip);
    expect(await app.store.countJobs(team.id)).toEqual({ requests: 2, receipts: 0 });
    const stored = await app.store.findJobs(jobs.map((job) => job.id));
    const bySeq = (a: number, b: number) => a - b;
    expect(stored.map((job) => job.seq).sort(bySeq)).toEqual(jobs.map((job) => job.seq).sort(bySeq));
  });
});
