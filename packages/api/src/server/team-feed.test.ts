import { DomainError, type TeamEvent } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { fakeLog, owner, take, takeWoken, teamId } from '../../test/support/team-feed-log.js';
import { createEventHub } from '../events/event-hub.js';
import { PULL_READY, type ReadyEvents } from './live/ready-events.js';
import { createTeamFeeds, FEED_RING_SIZE } from './team-feed.js';

/** The two ways the live server reads a cursor: awaiting `next()`, or pulls and a wake. */
const readers = [
  { way: 'next()', read: take },
  { way: 'PULL_OR_WAKE', read: takeWoken },
];

describe('team feeds', () => {
  it.each(readers)(
    'delivers in seq order when batches are published out of commit order, filling gaps from the log ($way)',
    async ({ read }) => {
      const hub = createEventHub();
      const log = fakeLog();
      const feeds = createTeamFeeds({ core: log.core, eventHub: hub, loadView: async (e) => ({ seq: e.seq }) });
      const cursor = feeds.follow(owner, teamId, 0, 0);
      const reading = read(cursor, 4);
      const [one, two, three, four] = [1, 2, 3, 4].map((seq) => log.commit(seq)) as TeamEvent[];
      hub.published([three as TeamEvent]);
      hub.published([one as TeamEvent, two as TeamEvent]);
      hub.published([four as TeamEvent]);
      expect(await reading).toEqual([1, 2, 3, 4]);
      await cursor.return?.();
      expect(feeds.size).toBe(0);
    },
  );

  it('loads the views of one published batch with one shared batch object, a new one per batch', async () => {
    const hub = createEventHub();
    const log = fakeLog();
    const batches = new Map<number, object>();
    const feeds = createTeamFeeds({
      core: log.core,
      eventHub: hub,
      loadView: async (e, batch) => {
        batches.set(e.seq, batch);
        return { seq: e.seq };
      },
    });
    const cursor = feeds.follow(owner, teamId, 0, 0);
    // A first event delivered: the feed's own first log read is over, it follows what is published.
    const first = log.commit(1);
    hub.published([first]);
    expect(await take(cursor, 1)).toEqual([1]);
    const reading = take(cursor, 5);
    const [two, three, four, five, six] = [2, 3, 4, 5, 6].map((seq) => log.commit(seq)) as TeamEvent[];
    hub.published([two as TeamEvent, three as TeamEvent, four as TeamEvent]);
    hub.published([five as TeamEvent, six as TeamEvent]);
    expect(await reading).toEqual([2, 3, 4, 5, 6]);
    expect(batches.get(2)).toBe(batches.get(3));
    expect(batches.get(3)).toBe(batches.get(4));
    expect(batches.get(5)).toBe(batches.get(6));
    expect(batches.get(4)).not.toBe(batches.get(5));
    await cursor.return?.();
  });

  it('shares one view object per event between subscribers and loads it once', async () => {
    const hub = createEventHub();
    const log = fakeLog();
    let loads = 0;
    const feeds = createTeamFeeds({
      core: log.core,
      eventHub: hub,
      loadView: async (e) => {
        loads += 1;
        return { seq: e.seq };
      },
    });
    const a = feeds.follow(owner, teamId, 0, 0);
    const b = feeds.follow(owner, teamId, 0, 0);
    const [first, second] = [a.next(), b.next()];
    hub.published([log.commit(1)]);
    const [x, y] = await Promise.all([first, second]);
    expect(x.value).toBe(y.value);
    expect(loads).toBe(1);
    await a.return?.();
    await b.return?.();
  });

  it.each(readers)(
    'replays from the log what the ring no longer holds, and fails with RESUME_EXPIRED past retention ($way)',
    async ({ read }) => {
      const hub = createEventHub();
      const log = fakeLog();
      const feeds = createTeamFeeds({ core: log.core, eventHub: hub, loadView: async (e) => ({ seq: e.seq }) });
      const live = feeds.follow(owner, teamId, 0, 0);
      const total = FEED_RING_SIZE + 50;
      for (let seq = 1; seq <= total; seq += 1) hub.published([log.commit(seq)]);
      expect(await read(live, total)).toHaveLength(total);
      const behind = feeds.follow(owner, teamId, 0, total);
      expect(await read(behind, total)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      log.drop(10);
      const expired = feeds.follow(owner, teamId, 0, total);
      const error = await read(expired, 1).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('RESUME_EXPIRED');
      for (const cursor of [live, behind, expired]) await cursor.return?.();
    },
  );

  it('loads every appended view once, before any subscriber asks for it', async () => {
    const hub = createEventHub();
    const log = fakeLog();
    const loaded: number[] = [];
    const feeds = createTeamFeeds({
      core: log.core,
      eventHub: hub,
      loadView: async (e) => {
        loaded.push(e.seq);
        return { seq: e.seq };
      },
    });
    const cursor = feeds.follow(owner, teamId, 0, 0);
    hub.published([log.commit(1), log.commit(2), log.commit(3)]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(loaded).toEqual([1, 2, 3]);
    expect(await take(cursor, 3)).toEqual([1, 2, 3]);
    expect(loaded).toEqual([1, 2, 3]);
    await cursor.return?.();
  });

  it("hands a commit's loaded events over synchronously after one wake, in order, skipping gone entities", async () => {
    const hub = createEventHub();
    const log = fakeLog();
    const feeds = createTeamFeeds({
      core: log.core,
      eventHub: hub,
      // The entity of event 2 no longer exists: it is skipped, as by next().
      loadView: async (e) => (e.seq === 2 ? null : { seq: e.seq }),
    });
    const cursor = feeds.follow(owner, teamId, 0, 0) as AsyncIterableIterator<{ seq: number }> &
      ReadyEvents<{ seq: number }>;
    expect(cursor[PULL_READY]()).toBeUndefined();
    const first = cursor.next();
    hub.published([log.commit(1), log.commit(2), log.commit(3), log.commit(4)]);
    expect((await first).value).toEqual({ seq: 1 });
    expect([cursor[PULL_READY](), cursor[PULL_READY]()].map((step) => step?.value)).toEqual([{ seq: 3 }, { seq: 4 }]);
    expect(cursor[PULL_READY]()).toBeUndefined();
    await cursor.return?.();
    expect(cursor[PULL_READY]()).toBeUndefined();
  });

  it('reports a failed view load to the subscriber that reaches it', async () => {
    const hub = createEventHub();
    const log = fakeLog();
    const feeds = createTeamFeeds({
      core: log.core,
      eventHub: hub,
      loadView: async (e) => {
        if (e.seq === 2) throw new Error('database gone');
        return { seq: e.seq };
      },
    });
    const cursor = feeds.follow(owner, teamId, 0, 0) as AsyncIterableIterator<{ seq: number }> &
      ReadyEvents<{ seq: number }>;
    hub.published([log.commit(1), log.commit(2)]);
    expect((await cursor.next()).value).toEqual({ seq: 1 });
    expect(cursor[PULL_READY]()).toBeUndefined();
    await expect(cursor.next()).rejects.toThrow('database gone');
    await cursor.return?.();
  });
});
