import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_OF_CONNECTION,
  mayFollowUnansweredBegin,
  pipelineBegin,
  RolledBackAtCommitError,
} from './pg-pipeline.js';

/** A pool client whose answers the test gives, one by one, recording what was sent and when. */
function fakeClient() {
  const sent: string[] = [];
  const pending = new Map<string, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  const client = {
    query(text: string) {
      sent.push(text);
      return new Promise((resolve, reject) => pending.set(text, { resolve, reject }));
    },
  };
  pipelineBegin(client as unknown as pg.PoolClient);
  const send = (text: string) => (client.query as (text: string, values: unknown[]) => Promise<unknown>)(text, []);
  const answer = (text: string, value: unknown = { command: 'SELECT', rowCount: 0, rows: [] }) =>
    pending.get(text)?.resolve(value);
  const fail = (text: string, error: unknown) => pending.get(text)?.reject(error);
  return { client, sent, send, answer, fail };
}

/** Lets every promise callback queued so far run. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('pipelineBegin', () => {
  it("sends a transaction's first read behind its BEGIN without waiting for the BEGIN's answer", async () => {
    const { sent, send, answer } = fakeClient();
    await expect(send('begin')).resolves.toMatchObject({ command: 'BEGIN' });
    let read: unknown = null;
    const reading = send('select 1 from "teams" where "id" = $1 for update').then((result) => {
      read = result;
    });
    expect(sent).toEqual(['begin', 'select 1 from "teams" where "id" = $1 for update']);
    answer('select 1 from "teams" where "id" = $1 for update', { rows: [{ n: 1 }] });
    await flush();
    // Not before the BEGIN's own answer: its failure would be the read's.
    expect(read).toBeNull();
    answer('begin', { command: 'BEGIN' });
    await reading;
    expect(read).toEqual({ rows: [{ n: 1 }] });
  });

  it("fails the read with the BEGIN's error when the BEGIN failed", async () => {
    const { send, answer, fail } = fakeClient();
    await send('BEGIN');
    const reading = send('select 1');
    answer('select 1');
    fail('BEGIN', new Error('connection lost'));
    await expect(reading).rejects.toThrow('connection lost');
  });

  it('keeps a write behind an unanswered BEGIN, and every statement after it behind it, in order', async () => {
    const { sent, send, answer } = fakeClient();
    await send('begin');
    const write = send('insert into "jobs" ("id") values ($1)');
    const after = send('select 2');
    await flush();
    expect(sent).toEqual(['begin']);
    answer('begin');
    await flush();
    expect(sent).toEqual(['begin', 'insert into "jobs" ("id") values ($1)']);
    answer('insert into "jobs" ("id") values ($1)', { command: 'INSERT', rowCount: 1 });
    await write;
    await flush();
    expect(sent).toEqual(['begin', 'insert into "jobs" ("id") values ($1)', 'select 2']);
    answer('select 2');
    await after;
    await flush();
    // The gate is gone: the next statement goes at once.
    void send('select 3');
    expect(sent.at(-1)).toBe('select 3');
  });

  it('never sends a write, nor what follows it, behind a BEGIN that failed, though a read went first', async () => {
    const { sent, send, answer, fail } = fakeClient();
    await send('begin');
    const read = send('select 1');
    const write = send('insert into "jobs" ("id") values ($1)');
    const next = send('select 2');
    expect(sent).toEqual(['begin', 'select 1']);
    answer('select 1');
    fail('begin', new Error('connection lost'));
    await expect(read).rejects.toThrow('connection lost');
    await expect(write).rejects.toThrow('connection lost');
    await expect(next).rejects.toThrow('connection lost');
    expect(sent).toEqual(['begin', 'select 1']);
  });

  it('answers the client of the connection itself, without sending it or taking the BEGIN', async () => {
    const { client, sent, send, answer } = fakeClient();
    await send('begin');
    const result = (await send(CLIENT_OF_CONNECTION)) as { rows: { client: unknown }[] };
    expect(result.rows[0]?.client).toBe(client);
    const reading = send('select 1');
    expect(sent).toEqual(['begin', 'select 1']);
    answer('select 1');
    answer('begin');
    await reading;
  });

  it('passes statements outside a transaction straight through', async () => {
    const { sent, send, answer } = fakeClient();
    const one = send('update "jobs" set "phase" = $1 where "id" = $2');
    const two = send('select 1');
    expect(sent).toEqual(['update "jobs" set "phase" = $1 where "id" = $2', 'select 1']);
    answer('update "jobs" set "phase" = $1 where "id" = $2');
    answer('select 1');
    await Promise.all([one, two]);
  });
});

describe('a COMMIT answered ROLLBACK', () => {
  it.each(['commit', 'COMMIT', 'end transaction', ' commit work; '])(
    "fails '%s': a statement of the transaction had failed, and nothing was written",
    async (text) => {
      const { send, answer } = fakeClient();
      const committing = send(text);
      answer(text, { command: 'ROLLBACK', rowCount: null, rows: [] });
      await expect(committing).rejects.toBeInstanceOf(RolledBackAtCommitError);
    },
  );

  it('passes a COMMIT answered COMMIT, and a ROLLBACK answered ROLLBACK', async () => {
    const { send, answer } = fakeClient();
    const committing = send('commit');
    const rolling = send('rollback');
    answer('commit', { command: 'COMMIT', rowCount: null, rows: [] });
    answer('rollback', { command: 'ROLLBACK', rowCount: null, rows: [] });
    await expect(committing).resolves.toMatchObject({ command: 'COMMIT' });
    await expect(rolling).resolves.toMatchObject({ command: 'ROLLBACK' });
  });
});

describe('mayFollowUnansweredBegin', () => {
  it.each([
    ['select * from "teams" where "id" = $1 for update', true],
    ['select * from "teams" where "id" = $1 for update skip locked', true],
    ['with "locked_team" as materialized (select "id" from "teams" for update) select * from "jobs" for update', true],
    ['select pg_advisory_xact_lock(hashtextextended($1, 0))', true],
    ['  SELECT 1', true],
    ['insert into "jobs" ("id") values ($1)', false],
    ['update "jobs" set "phase" = $1 where "id" = $2', false],
    ['update teams set revision = revision + 1', false],
    ['update public.teams set revision = 1', false],
    ['with e as (select 1) update "jobs" as "j" set "lease_fence" = "j"."lease_fence" + 1 from e', false],
    ['update only teams t set revision = 1', false],
    ['with t as ( update teams set last_event_seq = last_event_seq + $1::int ) select * from t', false],
    [
      'with "appended" as (insert into "record_messages" ("id") values ($1) returning "seq") select "seq" from "appended"',
      false,
    ],
    ['with d as (delete from "jobs" where "id" = $1 returning 1) select count(*) from d', false],
    ['merge into "jobs" using x on true when matched then do nothing', false],
    ['do $$ begin end $$', false],
    ['call refresh()', false],
    ['SAVEPOINT admission_ride', false],
    ['commit', false],
  ])('%s → %s', (text, expected) => {
    expect(mayFollowUnansweredBegin(text)).toBe(expected);
  });
});
