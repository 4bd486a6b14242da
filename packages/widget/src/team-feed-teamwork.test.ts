import { graphql, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createRoot } from 'solid-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Api, createApi } from './api.js';
import { createTeamFeed, type JobView, type MessageView } from './team-feed.js';

// The teamwork parts of the feed: team messages in the order, members paused in wait_for_change,
// spawned members reported to the roster, and turns that are no cards (MESSAGE) kept out.
const endpoint = 'http://widget.test/graphql';
const job = (id: string, createdAt: string, changes: Partial<JobView> = {}): JobView => ({
  id,
  kind: 'REQUEST',
  status: 'COMPLETED',
  text: id,
  error: null,
  createdAt,
  conversationId: null,
  member: { id: 'm1', name: 'Research', conversationId: 'c1' },
  requester: { member: null },
  parent: null,
  input: null,
  usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, cost: 0, calls: 0 },
  result: { text: 'ok' },
  ...changes,
});
const message = (id: string, createdAt: string): MessageView => ({
  id,
  from: { name: 'Lead' },
  to: [{ name: 'Research' }],
  text: `note ${id}`,
  delivery: 'FOLLOW_UP',
  createdAt,
});

const server = setupServer(
  graphql.link(endpoint).query('Activity', () =>
    HttpResponse.json({
      data: {
        team: {
          id: 't1',
          status: 'READY',
          lastEventSeq: 3,
          members: [
            { id: 'm1', status: 'IDLE' },
            { id: 'm2', status: 'RUNNING' },
          ],
          waiting: { edges: [{ node: { id: 'w1', member: { id: 'm2' } } }] },
          activity: {
            __typename: 'ActivityPage',
            revision: 'r',
            jobs: {
              pageInfo: { hasNextPage: false, endCursor: null },
              edges: [{ node: job('j1', '2026-01-01T00:00:01Z') }, { node: job('j2', '2026-01-01T00:00:03Z') }],
            },
          },
        },
      },
    }),
  ),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

type Sink = Parameters<Api['live']['subscribe']>[2];

function openFeed() {
  const api = createApi({ endpoint, token: async () => 't' });
  const sinks: Sink[] = [];
  vi.spyOn(api.live, 'subscribe').mockImplementation((_query, _variables, sink) => {
    sinks.push(sink);
    return () => {};
  });
  const seen: string[][] = [];
  let dispose = () => {};
  const feed = createRoot((d) => {
    dispose = d;
    return createTeamFeed(
      api,
      't1',
      () => {},
      (ids) => seen.push(ids),
    );
  });
  const next = (event: Record<string, unknown>) => sinks[0]?.next({ teamEvents: event });
  return {
    feed,
    sinks,
    seen,
    next,
    close: () => {
      dispose();
      api.dispose();
    },
  };
}

describe('createTeamFeed and teamwork', () => {
  it('places team messages among the requests by creation time, once each', async () => {
    const { feed, sinks, next, close } = openFeed();
    await vi.waitFor(() => expect(sinks).toHaveLength(1));
    next({ seq: 4, message: message('msg1', '2026-01-01T00:00:02Z') });
    feed.putMessage(message('msg1', '2026-01-01T00:00:02Z'));
    feed.putMessage(message('msg0', '2026-01-01T00:00:00Z'));
    expect(feed.order()).toEqual(['msg0', 'j1', 'msg1', 'j2']);
    expect(feed.message('msg1')?.text).toBe('note msg1');
    expect(feed.request('msg1')).toBeUndefined();
    close();
  });

  it('knows who waits in wait_for_change, from the read and live, and keeps MESSAGE turns out of the cards', async () => {
    const { feed, sinks, next, close } = openFeed();
    await vi.waitFor(() => expect(sinks).toHaveLength(1));
    expect(feed.waiting('m2')).toBe('w1');
    expect(feed.waiting('m1')).toBe('');
    const turn = job('w2', '2026-01-01T00:00:04Z', { kind: 'MESSAGE', status: 'WAITING_CHANGE' });
    next({ seq: 4, job: turn });
    expect(feed.waiting('m1')).toBe('w2');
    // Another job of the member changing does not end the wait; the waiting job's own change does.
    next({ seq: 5, job: job('j3', '2026-01-01T00:00:05Z', { status: 'QUEUED' }) });
    expect(feed.waiting('m1')).toBe('w2');
    next({ seq: 6, job: { ...turn, status: 'RUNNING' } });
    expect(feed.waiting('m1')).toBe('');
    expect(feed.order()).toEqual(['j1', 'j2', 'j3']);
    close();
  });

  it('reports the members it reads and every spawned or retired one, so the roster can catch up', async () => {
    const { feed, sinks, seen, next, close } = openFeed();
    await vi.waitFor(() => expect(sinks).toHaveLength(1));
    expect(seen).toEqual([['m1', 'm2']]);
    next({ seq: 4, member: { id: 'm3', status: 'IDLE' } });
    next({ seq: 5, member: { id: 'm2', status: 'RETIRED' }, team: { status: 'READY' } });
    expect(seen.slice(1)).toEqual([['m3'], ['m2']]);
    expect(feed.memberStatus('m2')).toBe('RETIRED');
    next({ seq: 6, team: { status: 'CLOSED' } });
    expect(feed.teamStatus()).toBe('CLOSED');
    close();
  });
});
