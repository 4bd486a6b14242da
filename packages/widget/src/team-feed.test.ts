import { graphql, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createRoot } from 'solid-js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Api, createApi } from './api.js';
import { createTeamFeed, type JobView, POLL_MS } from './team-feed.js';

const endpoint = 'http://widget.test/graphql';
const job = (id: string, createdAt: string): JobView => ({
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
});

const calls: Record<string, unknown>[] = [];
/** `Team.lastEventSeq` the mock answers with. */
let head = 7;
const server = setupServer(
  graphql.link(endpoint).query('Activity', ({ variables }) => {
    calls.push(variables);
    if (variables.revision === 'rev-1') {
      return HttpResponse.json({
        data: {
          team: {
            id: 't1',
            lastEventSeq: head,
            members: [{ id: 'm1', status: 'RUNNING' }],
            waiting: { edges: [] },
            activity: { __typename: 'ActivityUnchanged', revision: 'rev-1' },
          },
        },
      });
    }
    const page =
      variables.after == null
        ? {
            edges: [
              {
                node: { ...job('j1', '2026-01-01T00:00:01Z'), receipt: { id: 'r1', status: 'COMPLETED', error: null } },
              },
            ],
            next: 'c1',
          }
        : { edges: [{ node: job('j2', '2026-01-01T00:00:02Z') }], next: null };
    return HttpResponse.json({
      data: {
        team: {
          id: 't1',
          status: 'READY',
          lastEventSeq: head,
          members: [{ id: 'm1', status: 'IDLE' }],
          waiting: { edges: [] },
          activity: {
            __typename: 'ActivityPage',
            revision: 'rev-1',
            jobs: { pageInfo: { hasNextPage: page.next !== null, endCursor: page.next }, edges: page.edges },
          },
        },
      },
    });
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

type Sink = Parameters<Api['live']['subscribe']>[2];

/** A feed on the mock server whose socket is a spy: returns the feed and every subscription made. */
function openFeed(api: Api) {
  const subscriptions: { variables: Record<string, unknown>; sink: Sink }[] = [];
  vi.spyOn(api.live, 'subscribe').mockImplementation((_query, variables, sink) => {
    subscriptions.push({ variables, sink });
    return () => {};
  });
  let dispose = () => {};
  const feed = createRoot((d) => {
    dispose = d;
    return createTeamFeed(api, 't1', () => {});
  });
  return { feed, subscriptions, dispose };
}

beforeEach(() => {
  calls.length = 0;
  head = 7;
});
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
});

describe('createTeamFeed', () => {
  it('follows activity pages, pairs receipts with their requests and stops on dispose', async () => {
    const api = createApi({ endpoint, token: async () => 't' });
    const { feed, subscriptions, dispose } = openFeed(api);
    await vi.waitFor(() => expect(feed.order()).toEqual(['j1', 'j2']));
    expect(calls).toEqual([
      { id: 't1', revision: null, after: null },
      { id: 't1', revision: null, after: 'c1' },
    ]);
    expect(feed.receipt('j1')?.status).toBe('COMPLETED');
    expect(feed.memberStatus('m1')).toBe('IDLE');
    await vi.waitFor(() => expect(subscriptions).toHaveLength(1));
    await feed.refresh();
    expect(calls.at(-1)).toEqual({ id: 't1', revision: 'rev-1', after: null });
    expect(calls).toHaveLength(3);
    expect(feed.order()).toEqual(['j1', 'j2']);
    expect(feed.memberStatus('m1')).toBe('RUNNING');
    dispose();
    api.dispose();
  });

  it("subscribes from the team's lastEventSeq read with the snapshot, not from 0", async () => {
    const api = createApi({ endpoint, token: async () => 't' });
    const { feed, subscriptions, dispose } = openFeed(api);
    await vi.waitFor(() => expect(subscriptions).toHaveLength(1));
    expect(subscriptions[0]?.variables).toEqual({ teamId: 't1', afterSeq: 7 });
    // An event at or below the start is already in the snapshot; the next one is applied.
    subscriptions[0]?.sink.next({ teamEvents: { seq: 7, job: job('old', '2026-01-01T00:00:00Z') } });
    subscriptions[0]?.sink.next({ teamEvents: { seq: 8, job: job('j3', '2026-01-01T00:00:03Z') } });
    expect(feed.order()).toEqual(['j1', 'j2', 'j3']);
    dispose();
    api.dispose();
  });

  it('resumes from the last applied seq after a drop, even when the head moved on', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const api = createApi({ endpoint, token: async () => 't' });
    const { feed, subscriptions, dispose } = openFeed(api);
    await vi.waitFor(() => expect(subscriptions).toHaveLength(1));
    subscriptions[0]?.sink.next({ teamEvents: { seq: 8, member: { id: 'm1', status: 'RUNNING' } } });
    head = 12;
    subscriptions[0]?.sink.error({ dropped: true });
    expect(feed.live()).toBe('polling');
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await vi.waitFor(() => expect(subscriptions).toHaveLength(2));
    expect(subscriptions[1]?.variables).toEqual({ teamId: 't1', afterSeq: 8 });
    dispose();
    api.dispose();
  });

  it('resubscribes at once from the last seq when the token expired on a live socket, without reading again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const api = createApi({ endpoint, token: async () => 't' });
    const { feed, subscriptions, dispose } = openFeed(api);
    await vi.waitFor(() => expect(subscriptions).toHaveLength(1));
    subscriptions[0]?.sink.next({ teamEvents: { seq: 8, job: job('j3', '2026-01-01T00:00:03Z') } });
    const reads = calls.length;
    subscriptions[0]?.sink.error({ dropped: true, reauthenticate: true });
    expect(subscriptions).toHaveLength(2);
    expect(subscriptions[1]?.variables).toEqual({ teamId: 't1', afterSeq: 8 });
    expect(feed.live()).toBe('live');
    // The replay may repeat what was applied; only later seqs change anything.
    subscriptions[1]?.sink.next({
      teamEvents: { seq: 8, job: { ...job('j3', '2026-01-01T00:00:03Z'), text: 'again' } },
    });
    subscriptions[1]?.sink.next({ teamEvents: { seq: 9, job: job('j4', '2026-01-01T00:00:04Z') } });
    expect(feed.order()).toEqual(['j1', 'j2', 'j3', 'j4']);
    expect(feed.request('j3')?.text).toBe('j3');
    expect(calls.length).toBe(reads);
    dispose();
    api.dispose();
  });

  it('starts again from the new head after RESUME_EXPIRED, once the feed is read again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const api = createApi({ endpoint, token: async () => 't' });
    const { feed, subscriptions, dispose } = openFeed(api);
    await vi.waitFor(() => expect(subscriptions).toHaveLength(1));
    head = 40;
    const readsBefore = calls.length;
    subscriptions[0]?.sink.error({ dropped: false, code: 'RESUME_EXPIRED' });
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await vi.waitFor(() => expect(subscriptions).toHaveLength(2));
    expect(calls.length).toBeGreaterThan(readsBefore);
    expect(subscriptions[1]?.variables).toEqual({ teamId: 't1', afterSeq: 40 });
    subscriptions[1]?.sink.next({ teamEvents: { seq: 41, member: { id: 'm1', status: 'QUEUED' } } });
    expect(feed.live()).toBe('live');
    expect(feed.memberStatus('m1')).toBe('QUEUED');
    dispose();
    api.dispose();
  });

  it('replays from 0 when the first read is incomplete, so a missing page is not lost', async () => {
    let failed = false;
    server.use(
      graphql.link(endpoint).query('Activity', ({ variables }) => {
        if (variables.after == null || failed) return undefined;
        failed = true;
        return HttpResponse.json({ errors: [{ message: 'x', extensions: { code: 'UNEXPECTED' } }] });
      }),
    );
    const api = createApi({ endpoint, token: async () => 't' });
    const { feed, subscriptions, dispose } = openFeed(api);
    await vi.waitFor(() => expect(subscriptions).toHaveLength(1));
    expect(subscriptions[0]?.variables).toEqual({ teamId: 't1', afterSeq: 0 });
    expect(feed.order()).toEqual(['j1']);
    dispose();
    api.dispose();
  });

  it('keeps the team status from the read and from every event', async () => {
    const api = createApi({ endpoint, token: async () => 't' });
    const { feed, subscriptions, dispose } = openFeed(api);
    await vi.waitFor(() => expect(subscriptions).toHaveLength(1));
    expect(feed.teamStatus()).toBe('READY');
    subscriptions[0]?.sink.next({ teamEvents: { seq: 8, team: { status: 'DISCONNECTED' } } });
    expect(feed.teamStatus()).toBe('DISCONNECTED');
    // A receipt's input and usage are kept with it, under the request it answers.
    const asking = { ...job('r1', '2026-01-01T00:00:05Z'), kind: 'RECEIPT' as const, status: 'WAITING_INPUT' };
    const input = { kind: 'CLARIFICATION' as const, requestId: 'q1', question: 'Which?', payload: null };
    subscriptions[0]?.sink.next({
      teamEvents: { seq: 9, team: { status: 'READY' }, job: { ...asking, input, parent: { id: 'j1', text: 'j1' } } },
    });
    expect(feed.teamStatus()).toBe('READY');
    expect(feed.receipt('j1')).toEqual({ id: 'r1', status: 'WAITING_INPUT', error: null, input, usage: asking.usage });
    dispose();
    api.dispose();
  });

  it('pauses polling while the page is hidden and retries at once when it shows again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let hidden = false;
    const visibility = vi.spyOn(document, 'hidden', 'get').mockImplementation(() => hidden);
    const api = createApi({ endpoint, token: async () => 't' });
    const { feed, subscriptions, dispose } = openFeed(api);
    await vi.waitFor(() => expect(subscriptions).toHaveLength(1));
    hidden = true;
    document.dispatchEvent(new Event('visibilitychange'));
    const reads = calls.length;
    subscriptions[0]?.sink.error({ dropped: true });
    expect(feed.live()).toBe('polling');
    await vi.advanceTimersByTimeAsync(POLL_MS * 10);
    expect(calls.length).toBe(reads);
    expect(subscriptions).toHaveLength(1);
    hidden = false;
    document.dispatchEvent(new Event('visibilitychange'));
    await vi.waitFor(() => expect(subscriptions).toHaveLength(2));
    expect(calls.length).toBe(reads + 1);
    dispose();
    // After dispose, showing the page again does nothing.
    document.dispatchEvent(new Event('visibilitychange'));
    await vi.advanceTimersByTimeAsync(POLL_MS * 2);
    expect(subscriptions).toHaveLength(2);
    visibility.mockRestore();
    api.dispose();
  });
});
