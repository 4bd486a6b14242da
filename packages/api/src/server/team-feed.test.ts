import { asOwnerId, asTeamId, type Core, DomainError, type TeamEvent, teamChangedEvent } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { createEventHub } from '../events/event-hub.js';
import { PULL_OR_WAKE, PULL_READY, type ReadyEvents, type WakingEvents } from './live/ready-events.js';
import { createTeamFeeds, FEED_RING_SIZE } from './team-feed.js';

const owner = asOwnerId('alice');
const teamId = asTeamId('team_1');

/** A log the fake core reads from; `commit` appends without publishing. */
function fakeLog() {
  const log: TeamEvent[] = [];
  let reads = 0;
  const event = (seq: number): TeamEvent => teamChangedEvent(teamId, owner, seq, '2026-11-30T00:00:00.000Z');
  const core = {
    events: {
      read: async (_owner: unknown, _team: unknown, afterSeq: number, limit: number) => {
        reads += 1;
        return log.filter((e) => e.seq > afterSeq).slice(0, limit);
      },
    },
    teams: { get: async () => ({ id: teamId }) },
  } as unknown as Core;
  return {
    core,
    commit: (seq: number) => {
      const e = event(seq);
      log.push(e);
      return e;
    },
    drop: (upTo: number) => log.splice(0, log.filter((e) => e.seq <= upTo).length),
    get reads() {
      return reads;
    },
  };
}

async function take(iterator: AsyncIterator<{ seq: number }>, count: number): Promise<number[]> {
  const seqs: number[] = [];
  while (seqs.length < count) {
    const step = await iterator.next();
    if (step.done) break;
    seqs.push(step.value.seq);
  }
  return seqs;
}

/** Like `take`, read as the live server reads: pulls, and a wake when nothing is ready (no `next()`). */
function takeWoken(iterator: AsyncIterator<{ seq: number }>, count: number): Promise<number[]> {
  const source = iterator as AsyncIterator<{ seq: number }> & WakingEvents<{ seq: number }>;
  return new Promise((resolve, reject) => {
    const seqs: number[] = [];
    const pass = (): void => {
      try {
        while (seqs.length < count) {
          const step = source[PULL_READY]() ?? source[PULL_OR_WAKE](pass);
          if (step === undefined) return;
          if (step.done) break;
          seqs.push(step.value.seq);
        }
        resolve(seqs);
      } catch (error) {
        reject(error);
      }
    };
    pass();
  });
}

describe('team feeds', () => {
  it('delivers in seq order when batches are published out of commit order, filling gaps from the log', async () => {
    const hub = createEventHub();
    const log = fakeLog();
    const feeds = createTeamFeeds({ core: log.core, eventHub: hub, loadView: async (e) => ({ seq: e.seq }) });
    const cursor = feeds.follow(owner, teamId, 0, 0);
    const reading = take(cursor, 4);
    const [one, two, three, four] = [1, 2, 3, 4].map((seq) => log.commit(seq)) as TeamEvent[];
    hub.published([three as TeamEvent]);
    hub.published([one as TeamEvent, two as TeamEvent]);
    hub.published([four as TeamEvent]);
    expect(await reading).toEqual([1, 2, 3, 4]);
    await cursor.return?.();
    expect(feeds.size).toBe(0);
  });

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

  it('replays from the log what the ring no longer holds, and fails with RESUME_EXPIRED past retention', async () => {
    const hub = createEventHub();
    const log = fakeLog();
    const feeds = createTeamFeeds({ core: log.core, eventHub: hub, loadView: async (e) => ({ seq: e.seq }) });
    const live = feeds.follow(owner, teamId, 0, 0);
    const total = FEED_RING_SIZE + 50;
    for (let seq = 1; seq <= total; seq += 1) hub.published([log.commit(seq)]);
    expect(await take(live, total)).toHaveLength(total);
    const behind = feeds.follow(owner, teamId, 0, total);
    expect(await take(behind, total)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    log.drop(10);
    const expired = feeds.follow(owner, teamId, 0, total);
    const error = await expired.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('RESUME_EXPIRED');
    for (const cursor of [live, behind, expired]) await cursor.return?.();
  });

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

describe('team feeds read through PULL_OR_WAKE', () => {
  const views = async (e: TeamEvent) => ({ seq: e.seq });

  it('delivers in seq order, filling gaps from the log, woken by the feed', async () => {
    const hub = createEventHub();
    const log = fakeLog();
    const cursor = createTeamFeeds({ core: log.core, eventHub: hub, loadView: views }).follow(owner, teamId, 0, 0);
    const reading = takeWoken(cursor, 4);
    const [one, two, three, four] = [1, 2, 3, 4].map((seq) => log.commit(seq)) as TeamEvent[];
    hub.published([three as TeamEvent]);
    hub.published([one as TeamEvent, two as TeamEvent]);
    hub.published([four as TeamEvent]);
    expect(await reading).toEqual([1, 2, 3, 4]);
    await cursor.return?.();
  });

  it('replays from the log behind the ring, and answers RESUME_EXPIRED past retention', async () => {
    const hub = createEventHub();
    const log = fakeLog();
    const feeds = createTeamFeeds({ core: log.core, eventHub: hub, loadView: views });
    const live = feeds.follow(owner, teamId, 0, 0);
    const total = FEED_RING_SIZE + 50;
    for (let seq = 1; seq <= total; seq += 1) hub.published([log.commit(seq)]);
    expect(await takeWoken(live, total)).toHaveLength(total);
    const behind = feeds.follow(owner, teamId, 0, total);
    expect(await takeWoken(behind, total)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    log.drop(10);
    const expired = feeds.follow(owner, teamId, 0, total);
    const error = await takeWoken(expired, 1).catch((e: unknown) => e);
    expect((error as DomainError).code).toBe('RESUME_EXPIRED');
    for (const cursor of [live, behind, expired]) await cursor.return?.();
  });

  it('reports a failed view load to the woken reader that reaches it', async () => {
    const hub = createEventHub();
    const log = fakeLog();
    const loadView = async (e: TeamEvent) => {
      if (e.seq === 2) throw new Error('database gone');
      return { seq: e.seq };
    };
    const cursor = createTeamFeeds({ core: log.core, eventHub: hub, loadView }).follow(owner, teamId, 0, 0);
    hub.published([log.commit(1), log.commit(2)]);
    expect(await takeWoken(cursor, 1)).toEqual([1]);
    await expect(takeWoken(cursor, 1)).rejects.toThrow('database gone');
    await cursor.return?.();
  });

  it('calls an armed wake once when the cursor ends, which then answers the end, and never again', async () => {
    const hub = createEventHub();
    const log = fakeLog();
    const cursor = createTeamFeeds({ core: log.core, eventHub: hub, loadView: views }).follow(
      owner,
      teamId,
      0,
      0,
    ) as unknown as WakingEvents<{ seq: number }> & { return(): Promise<unknown> };
    let woken = 0;
    expect(cursor[PULL_OR_WAKE](() => (woken += 1))).toBeUndefined();
    await cursor.return();
    expect(woken).toBe(1);
    expect(cursor[PULL_OR_WAKE](() => (woken += 1))).toEqual({ done: true, value: undefined });
    hub.published([log.commit(1)]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(woken).toBe(1);
  });
});
