import type { TeamEvent } from '@agent-teams/core';
import { describe, expect, it, vi } from 'vitest';
import { fakeLog, owner, takeWoken, teamId } from '../../test/support/team-feed-log.js';
import { createEventHub } from '../events/event-hub.js';
import { PULL_OR_WAKE, type WakingEvents } from './live/ready-events.js';
import { createTeamFeeds } from './team-feed.js';

describe('team feeds read through PULL_OR_WAKE', () => {
  const views = async (e: TeamEvent) => ({ seq: e.seq });

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

  it('hands an answer a wake delivered to next() too, once, if the reader switches', async () => {
    const hub = createEventHub();
    const log = fakeLog();
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const loadView = async (e: TeamEvent) => {
      await turn();
      return { seq: e.seq };
    };
    const cursor = createTeamFeeds({ core: log.core, eventHub: hub, loadView }).follow(
      owner,
      teamId,
      0,
      0,
    ) as unknown as AsyncIterator<{ seq: number }> & WakingEvents<{ seq: number }>;
    // The feed's first read of the log (empty) is over before the commit is published.
    await vi.waitFor(() => expect(log.reads).toBe(1));
    await turn();
    hub.published([log.commit(1), log.commit(2)]);
    // Event 1 is appended but its view still loads: the wake comes through next(), once it answered.
    let woken = 0;
    expect(cursor[PULL_OR_WAKE](() => (woken += 1))).toBeUndefined();
    await vi.waitFor(() => expect(woken).toBe(1));
    expect((await cursor.next()).value).toEqual({ seq: 1 });
    expect((await cursor.next()).value).toEqual({ seq: 2 });
    await cursor.return?.();
  });
});
