import { graphql, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createRoot } from 'solid-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApi } from './api.js';
import { createTeamFeed, type JobView } from './team-feed.js';

const endpoint = 'http://widget.test/graphql';
const job = (id: string, createdAt: string): JobView => ({
  id,
  kind: 'REQUEST',
  status: 'COMPLETED',
  text: id,
  error: null,
  createdAt,
  finishedAt: createdAt,
  conversationId: null,
  member: { id: 'm1', name: 'Research', conversationId: 'c1' },
  requester: { member: null, conversationId: null },
  parent: null,
  input: null,
  result: { available: true, text: 'ok', truncated: false },
});

const calls: Record<string, unknown>[] = [];
const server = setupServer(
  graphql.link(endpoint).query('Activity', ({ variables }) => {
    calls.push(variables);
    if (variables.revision === 'rev-1') {
      return HttpResponse.json({
        data: {
          team: {
            id: 't1',
            members: [{ id: 'm1', status: 'RUNNING' }],
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
          members: [{ id: 'm1', status: 'IDLE' }],
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

describe('createTeamFeed', () => {
  it('follows activity pages, pairs receipts with their requests and stops on dispose', async () => {
    const api = createApi({ endpoint, token: async () => 't' });
    const subscribe = vi.spyOn(api.live, 'subscribe').mockReturnValue(() => {});
    await createRoot(async (dispose) => {
      const feed = createTeamFeed(api, 't1', () => {});
      await vi.waitFor(() => expect(feed.state.order).toEqual(['j1', 'j2']));
      expect(calls).toEqual([
        { id: 't1', revision: null, after: null },
        { id: 't1', revision: null, after: 'c1' },
      ]);
      expect(feed.state.receipts.j1?.status).toBe('COMPLETED');
      expect(feed.state.memberStatus.m1).toBe('IDLE');
      await vi.waitFor(() =>
        expect(subscribe).toHaveBeenCalledWith(expect.any(String), { teamId: 't1', afterSeq: 0 }, expect.anything()),
      );
      await feed.refresh();
      expect(calls.at(-1)).toEqual({ id: 't1', revision: 'rev-1', after: null });
      expect(calls).toHaveLength(3);
      expect(feed.state.order).toEqual(['j1', 'j2']);
      expect(feed.state.memberStatus.m1).toBe('RUNNING');
      dispose();
    });
    api.dispose();
  });
});
