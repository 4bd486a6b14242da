// PostgreSQL: a freeze that delivers its member's undelivered messages sends the delivery and
// leaves it (decision 0259): the copies it changes are those its locked read found, so its events
// are known before the answer, and the server fails the statement unless it changed that many.
// A pass admitting two turns that each deliver waits no round trip for their deliveries.
import { asOwnerId, JobPhase } from '@agent-teams/core';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { tripsOf } from '../support/pg-round-trips.js';
import { holdPlanningLock, recordedPostgresAppPerFile, teamOfTwo } from '../support/recorded-postgres-app.js';
import { waitFor } from './scheduler-harness.js';

const ALICE = asOwnerId('alice');

const recorded = recordedPostgresAppPerFile('agent_teams_delivery_trips', 'srv_delivery_trips');

describe('a pass whose turns deliver messages, on PostgreSQL', () => {
  it('leaves the deliveries to go with the COMMIT: 3 round trips, each message delivered once, in send order', async () => {
    const { app, trips, db } = recorded();
    const { team, memberIds } = await teamOfTwo(app, ALICE, 'deliver');
    const [first, second] = memberIds;
    // Quiet messages wait for each member's next turn: two for the first, one for the second.
    const sent: string[] = [];
    for (const [key, to, text] of [
      ['m1', first, 'Read this first 数据'],
      ['m2', second, 'For the second 😀'],
      ['m3', first, 'And then this'],
    ] as const) {
      const message = await app.core.messages.send(ALICE, {
        teamId: team.id,
        memberIds: [to],
        text,
        delivery: 'QUIET',
        clientRequestId: key,
      });
      sent.push(message.id);
    }
    const locker = await holdPlanningLock(db.url);
    try {
      const since = trips.mark();
      const jobs = await app.core.requests.send(ALICE, {
        teamId: team.id,
        memberIds,
        text: 'Instant answer',
        clientRequestId: 'r-deliver',
      });
      await locker.query('COMMIT');
      await waitFor(
        async () => (await app.store.findJobs(jobs.map((job) => job.id))).every((j) => j.phase === JobPhase.COMPLETED),
        'both turns done',
      );
      const delivers = (s: { text: string }) => /update "team_message_deliveries"/.test(s.text);
      const pass = trips.transactions(since).find((t) => t.some(delivers));
      if (pass === undefined) throw new Error('no pass delivering recorded');
      const deliveries = pass.filter(delivers);
      expect(deliveries).toHaveLength(2);
      const commit = pass.find((s) => /^commit$/i.test(s.text));
      for (const delivery of deliveries) expect(delivery.trip).toBe(commit?.trip);
      expect(tripsOf(pass)).toBe(3);
    } finally {
      await locker.end();
    }
    // Each copy delivered into its member's turn, once; the events in send order.
    expect(await app.core.messages.mailbox(first)).toEqual([]);
    expect(await app.core.messages.mailbox(second)).toEqual([]);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows: delivered } = await client.query(
        'select message_id, member_id, job_id from team_message_deliveries order by message_seq',
      );
      expect(delivered.map((row) => row.message_id)).toEqual(sent);
      expect(delivered.every((row) => row.job_id !== null)).toBe(true);
      const { rows: events } = await client.query(
        "select message_id, member_id, job_id from team_events where team_id = $1 and kind = 'MESSAGE_DELIVERED' order by seq",
        [team.id],
      );
      // One event per copy; each member's in send order (the first member's two: m1, then m3).
      const ofFirst = events.filter((row) => row.member_id === first).map((row) => row.message_id);
      expect(ofFirst).toEqual([sent[0], sent[2]]);
      expect(new Set(events.map((row) => row.message_id))).toEqual(new Set(sent));
      for (const event of events) {
        const delivery = delivered.find((row) => row.message_id === event.message_id);
        expect(event).toEqual({
          message_id: delivery?.message_id,
          member_id: delivery?.member_id,
          job_id: delivery?.job_id,
        });
      }
    } finally {
      await client.end();
    }
  });

  it('fails the admission, blamed on the job, when the delivery changed another count of copies than its read found', async () => {
    const { app, db } = recorded();
    const { team, memberIds } = await teamOfTwo(app, ALICE, 'skipped');
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      // A trigger that silently keeps one copy undelivered, once (a sequence is not rolled back).
      await admin.query(`
        create sequence skip_delivery_once;
        create function skip_delivery_once() returns trigger language plpgsql as $$
        begin
          if new.job_id is not null and nextval('skip_delivery_once') = 1 then return null; end if;
          return new;
        end $$;
        create trigger skip_delivery_once before update on team_message_deliveries
          for each row execute function skip_delivery_once();`);
      await app.core.messages.send(ALICE, {
        teamId: team.id,
        memberIds: [memberIds[0]],
        text: 'Skipped once',
        delivery: 'QUIET',
        clientRequestId: 'm-skipped',
      });
      const [job] = await app.core.requests.send(ALICE, {
        teamId: team.id,
        memberIds: [memberIds[0]],
        text: 'Instant answer',
        clientRequestId: 'r-skipped',
      });
      if (job === undefined) throw new Error('nothing enqueued');
      // Refused by the server's count: the job is set aside, then admitted (the trigger passes).
      await waitFor(async () => (await app.store.findJobs([job.id]))[0]?.phase === JobPhase.COMPLETED, 'done', 20_000);
      const refused = app.logger.entries.filter((entry) =>
        String(entry.fields?.error).includes('frozen messages delivered'),
      );
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(await app.core.messages.mailbox(memberIds[0])).toEqual([]);
      const { rows } = await admin.query(
        "select count(*)::int as n from team_events where team_id = $1 and kind = 'MESSAGE_DELIVERED'",
        [team.id],
      );
      expect((rows[0] as { n: number }).n).toBe(1);
    } finally {
      await admin.query('drop trigger if exists skip_delivery_once on team_message_deliveries');
      await admin.end();
    }
  });
});
