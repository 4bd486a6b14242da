import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asOwnerId } from '@agent-teams/core';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import { createTeam, sendRequest } from '../graphql/fixtures.js';
import { createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { ClientPool, collectEvents, firstCode, type LiveEvent, until } from './live-clients.js';

const seqsUpTo = (last: number) => Array.from({ length: last }, (_, i) => i + 1);

async function lastSeq(stack: GraphqlStack, teamId: string, owner = 'alice'): Promise<number> {
  return (await stack.core.teams.get(asOwnerId(owner), teamId))?.lastEventSeq ?? 0;
}

describe('teamEvents delivery', () => {
  let stack: GraphqlStack;
  let pool: ClientPool;
  let memberLoads = 0;
  const tokens = new Map([
    [TOKENS.alice, 'alice'],
    [TOKENS.bob, 'bob'],
    ['tok-carol', 'carol'],
  ]);

  beforeAll(async () => {
    stack = await createGraphqlStack({
      tokens,
      // Counts member loads: the shared path loads an event's member once, not once per subscriber.
      core: (core) => ({
        ...core,
        load: {
          ...core.load,
          members: (ids) => {
            memberLoads += 1;
            return core.load.members(ids);
          },
        },
      }),
    });
    const { url } = await stack.server.listen(0, '127.0.0.1');
    pool = new ClientPool(`${url.replace('http', 'ws')}/graphql`);
  });
  afterAll(async () => {
    await pool.dispose();
    await stack.close();
  });

  it('delivers every event once, in seq order, to subscribers started before, during and after concurrent writers', async () => {
    const team = await createTeam(stack);
    const start = await lastSeq(stack, team.id);
    const done = { last: Number.POSITIVE_INFINITY };
    const reachedEnd = (events: LiveEvent[]) => (events.at(-1)?.seq ?? 0) >= done.last;
    const early = [0, 1, 2].map(() =>
      collectEvents(pool.client(TOKENS.alice), { teamId: team.id, afterSeq: 0 }, reachedEnd),
    );
    const writers = Array.from({ length: 24 }, (_, i) =>
      sendRequest(stack, team.id, [String(team.members[i % 2]?.id)], `task ${i}`),
    );
    // These start while the writers commit: their replay from the log races the live events.
    const during = [0, 1].map(() =>
      collectEvents(pool.client(TOKENS.alice), { teamId: team.id, afterSeq: start }, reachedEnd),
    );
    const jobIds = (await Promise.all(writers)).flat();
    for (const id of jobIds) await stack.waitForJob(id, ['COMPLETED']);
    done.last = await lastSeq(stack, team.id);
    expect(done.last).toBeGreaterThan(100);
    const late = collectEvents(pool.client(TOKENS.alice), { teamId: team.id, afterSeq: 0 }, reachedEnd);
    const received = await Promise.all([...early, ...during, late]);
    for (const events of [...received.slice(0, 3), received[5] ?? []]) {
      expect(events.map((event) => event.seq)).toEqual(seqsUpTo(done.last));
    }
    for (const events of received.slice(3, 5)) {
      expect(events.map((event) => event.seq)).toEqual(seqsUpTo(done.last).slice(start));
    }
    // Every job's last JobChanged shows it completed.
    const lastStatus = new Map(
      (received[0] ?? []).filter((event) => event.job).map((event) => [event.job?.id, event.job?.status]),
    );
    for (const id of jobIds) expect(lastStatus.get(id)).toBe('COMPLETED');
  });

  it('loads and resolves a shared document once per event, not once per subscriber', async () => {
    const team = await createTeam(stack);
    const afterSeq = await lastSeq(stack, team.id);
    const query = `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
      seq ... on JobChanged { job { member { name } } } } }`;
    const subscribers = 12;
    const received: unknown[][] = Array.from({ length: subscribers }, () => []);
    const disposers = received.map((events) =>
      pool
        .client(TOKENS.alice)
        .subscribe(
          { query, variables: { teamId: team.id, afterSeq } },
          { next: (result) => events.push(result), error: () => {}, complete: () => {} },
        ),
    );
    // Wait until every subscriber is caught up on an event, so the next ones are live for all.
    const [warmJob = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], 'warm up');
    await stack.waitForJob(warmJob, ['COMPLETED']);
    const warm = await lastSeq(stack, team.id);
    await until(() => received.every((events) => events.length === warm - afterSeq), 'warm-up events');
    memberLoads = 0;
    const [sharedJob = ''] = await sendRequest(stack, team.id, [String(team.members[1]?.id)], 'shared');
    await stack.waitForJob(sharedJob, ['COMPLETED']);
    const final = await lastSeq(stack, team.id);
    await until(() => received.every((events) => events.length >= final - afterSeq), 'shared events');
    // The events of this request: one JobChanged (with its member), a record, a member status.
    // Per subscriber that would be >= 12 member loads; shared it is a handful.
    expect(memberLoads).toBeLessThanOrEqual(2 * (final - warm));
    for (const events of received) expect(JSON.stringify(events)).toBe(JSON.stringify(received[0]));
    for (const dispose of disposers) dispose();
  });

  it("never delivers one owner's events to another owner", async () => {
    const aliceTeam = await createTeam(stack, TOKENS.alice);
    const bobTeam = await createTeam(stack, TOKENS.bob);
    const refused = await collectEvents(
      pool.client(TOKENS.bob),
      { teamId: aliceTeam.id, afterSeq: 0 },
      () => true,
    ).catch((error: unknown) => error);
    expect(firstCode(refused)).toBe('NOT_FOUND');
    const collect = (token: string, teamId: string, owner: string) =>
      (async () => {
        const last = { seq: Number.POSITIVE_INFINITY };
        const events = collectEvents(
          pool.client(token),
          { teamId, afterSeq: 0 },
          (got) => (got.at(-1)?.seq ?? 0) >= last.seq,
        );
        return { events, last, owner, teamId };
      })();
    const watchers = await Promise.all([
      collect(TOKENS.alice, aliceTeam.id, 'alice'),
      collect(TOKENS.bob, bobTeam.id, 'bob'),
    ]);
    await Promise.all([
      sendRequest(stack, aliceTeam.id, [String(aliceTeam.members[0]?.id)], 'alice work', TOKENS.alice),
      sendRequest(stack, bobTeam.id, [String(bobTeam.members[0]?.id)], 'bob work', TOKENS.bob),
    ]);
    for (const watcher of watchers) watcher.last.seq = await lastSeq(stack, watcher.teamId, watcher.owner);
    for (const watcher of watchers) {
      const events = await watcher.events;
      expect(events.length).toBe(watcher.last.seq);
      expect(new Set(events.map((event) => event.team.id))).toEqual(new Set([watcher.teamId]));
    }
  });

  it('stops delivery and closes the socket with 4403 once the token is revoked', async () => {
    tokens.set('tok-revoked', 'alice');
    const team = await createTeam(stack);
    const raw = await pool.raw();
    await raw.init('tok-revoked');
    raw.send({
      type: 'subscribe',
      id: 'a',
      payload: {
        query: 'subscription($t: ID!) { teamEvents(teamId: $t, afterSeq: 0) { seq } }',
        variables: { t: team.id },
      },
    });
    await raw.waitFor((frame) => frame.type === 'next');
    tokens.delete('tok-revoked');
    const before = raw.frames.length;
    const seqBefore = await lastSeq(stack, team.id);
    await sendRequest(stack, team.id, [String(team.members[0]?.id)], 'after revocation');
    expect(await lastSeq(stack, team.id)).toBeGreaterThan(seqBefore);
    expect((await raw.closed).code).toBe(4403);
    // Frames already queued before the revocation may arrive; none for the new events.
    const delivered = raw.frames.slice(before).filter((frame) => frame.type === 'next');
    for (const frame of delivered) {
      const seq = (frame.payload as { data: { teamEvents: { seq: number } } }).data.teamEvents.seq;
      expect(seq).toBeLessThanOrEqual(seqBefore);
    }
  });
});

describe('resume', () => {
  let dir: string;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('resumes with afterSeq across a server restart on the same SQLite file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'live-resume-'));
    const file = join(dir, 'teams.sqlite');
    const first = await createGraphqlStack({ database: file, scheduler: false });
    const { url } = await first.server.listen(0, '127.0.0.1');
    const pool = new ClientPool(`${url.replace('http', 'ws')}/graphql`);
    const team = await createTeam(first);
    await sendRequest(first, team.id, [String(team.members[0]?.id)], 'before restart');
    const headBefore = await lastSeq(first, team.id);
    const seen = await collectEvents(
      pool.client(TOKENS.alice),
      { teamId: team.id, afterSeq: 0 },
      (events) => events.length === headBefore,
    );
    const resumeAfter = seen.at(-2)?.seq ?? 0;
    await pool.dispose();
    await first.close();

    const second = await createGraphqlStack({ database: file, scheduler: false, ids: createRandomIds() });
    try {
      const { url: url2 } = await second.server.listen(0, '127.0.0.1');
      const pool2 = new ClientPool(`${url2.replace('http', 'ws')}/graphql`);
      await sendRequest(second, team.id, [String(team.members[1]?.id)], 'after restart');
      const head = await lastSeq(second, team.id);
      const resumed = await collectEvents(
        pool2.client(TOKENS.alice),
        { teamId: team.id, afterSeq: resumeAfter },
        (events) => (events.at(-1)?.seq ?? 0) >= head,
      );
      expect(resumed.map((event) => event.seq)).toEqual(seqsUpTo(head).slice(resumeAfter));
      await pool2.dispose();
    } finally {
      await second.close();
    }
  });

  it('answers RESUME_EXPIRED for a seq older than the retained log or past its head', async () => {
    dir = mkdtempSync(join(tmpdir(), 'live-expired-'));
    const file = join(dir, 'teams.sqlite');
    const stack = await createGraphqlStack({ database: file, scheduler: false });
    try {
      const { url } = await stack.server.listen(0, '127.0.0.1');
      const pool = new ClientPool(`${url.replace('http', 'ws')}/graphql`);
      const team = await createTeam(stack);
      await sendRequest(stack, team.id, [String(team.members[0]?.id)], 'one');
      const head = await lastSeq(stack, team.id);
      // What retention does to a log older than 1,000 events and 24 hours: the oldest rows go.
      const sqlite = new Database(file);
      sqlite.prepare('DELETE FROM team_events WHERE team_id = ? AND seq <= 2').run(team.id);
      sqlite.close();
      for (const afterSeq of [0, 1, head + 5]) {
        const error = await collectEvents(pool.client(TOKENS.alice), { teamId: team.id, afterSeq }, () => true).catch(
          (e: unknown) => e,
        );
        expect(firstCode(error)).toBe('RESUME_EXPIRED');
      }
      // The first retained seq minus one is still a valid resume point.
      const ok = await collectEvents(
        pool.client(TOKENS.alice),
        { teamId: team.id, afterSeq: 2 },
        (events) => events.length === head - 2,
      );
      expect(ok.map((event) => event.seq)).toEqual(seqsUpTo(head).slice(2));
      await pool.dispose();
    } finally {
      await stack.close();
    }
  });
});
