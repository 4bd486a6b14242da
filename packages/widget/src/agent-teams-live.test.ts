import { agentTeamsHandlers, createWidgetFake } from '@agent-teams/testkit/msw';
import type { RequestHandler } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, JOB_PROGRESS, SEND_REQUEST, TEAM_EVENTS } from './api.js';

// The subscriptions half of testkit's agentTeamsHandlers, driven by the widget's own socket client
// (graphql-transport-ws over msw's WebSocket interception in jsdom).
const endpoint = 'http://host.test/graphql';
const fake = createWidgetFake({ reply: (text) => `ok: ${text}` });
const handlers = agentTeamsHandlers({ endpoint, token: 'tok', fake }) as unknown as RequestHandler[];
const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterAll(() => server.close());

// biome-ignore lint/suspicious/noExplicitAny: each test reads the shape its document asked for
type Data = Record<string, any>;

function collect() {
  const events: Data[] = [];
  const errors: { dropped: boolean; code?: string; reauthenticate?: boolean }[] = [];
  let completed = false;
  return {
    events,
    errors,
    completed: () => completed,
    sink: {
      next: (data: Data) => events.push(data),
      error: (info: (typeof errors)[number]) => errors.push(info),
      complete: () => {
        completed = true;
      },
    },
  };
}

const team = fake.createTeam({
  name: 'Live',
  goal: 'Watch',
  members: [
    { name: 'Ada', agentId: 'researcher' },
    { name: 'Bo', agentId: 'writer' },
  ],
});

describe('agentTeamsHandlers over the WebSocket', () => {
  it('streams a request sent through the widget as JobChanged, live', async () => {
    const api = createApi({ endpoint, token: async () => 'tok' });
    const seen = collect();
    const stop = api.live.subscribe(TEAM_EVENTS, { teamId: team.id, afterSeq: team.lastEventSeq }, seen.sink);
    await new Promise<void>((resolve) => api.live.onStatus((ok) => ok && resolve()));
    const sent = await api.mutate<Data>(SEND_REQUEST, {
      input: { teamId: team.id, memberIds: [team.members[0]?.id], text: 'a plan', clientRequestId: 'l1' },
    });
    await expect.poll(() => seen.events.length).toBe(1);
    const event = seen.events[0]?.teamEvents;
    expect(event).toMatchObject({ __typename: 'JobChanged', seq: team.lastEventSeq, team: { status: 'READY' } });
    expect(event.job).toMatchObject({
      id: sent.sendRequest.jobs[0].id,
      status: 'COMPLETED',
      result: { text: 'ok: a plan' },
    });
    stop();
    api.dispose();
  });

  it('replays the events after afterSeq, in order, then completes when the team is deleted', async () => {
    const other = fake.createTeam({
      name: 'Other',
      goal: 'g',
      members: team.members.map((m) => ({ ...m, agentId: m.agent.id })),
    });
    const from = other.lastEventSeq;
    fake.sendRequest({ teamId: other.id, memberIds: [other.members[0]?.id ?? ''], text: 'one' });
    fake.sendRequest({ teamId: other.id, memberIds: [other.members[1]?.id ?? ''], text: 'two' });
    const api = createApi({ endpoint, token: async () => 'tok' });
    const seen = collect();
    api.live.subscribe(TEAM_EVENTS, { teamId: other.id, afterSeq: from }, seen.sink);
    await expect.poll(() => seen.events.map((e) => e.teamEvents.seq)).toEqual([from + 1, from + 2]);
    expect(seen.events.map((e) => e.teamEvents.job.text)).toEqual(['one', 'two']);
    fake.deleteTeam(other.id);
    await expect.poll(() => seen.completed()).toBe(true);
    api.dispose();
  });

  it('answers NOT_FOUND for an unknown team; jobProgress of a finished job sends its final state and completes', async () => {
    const api = createApi({ endpoint, token: async () => 'tok' });
    const missing = collect();
    api.live.subscribe(TEAM_EVENTS, { teamId: 'team_none' }, missing.sink);
    await expect.poll(() => missing.errors).toEqual([{ dropped: false, code: 'NOT_FOUND' }]);
    const progress = collect();
    api.live.subscribe(JOB_PROGRESS, { jobId: team.jobs[0]?.id }, progress.sink);
    await expect.poll(() => progress.completed()).toBe(true);
    // As the server: one payload with the final status (the fake's requests finish when sent).
    expect(progress.events).toEqual([
      {
        jobProgress: expect.objectContaining({
          job: expect.objectContaining({ id: team.jobs[0]?.id, status: 'COMPLETED' }),
          textDelta: null,
          toolCall: null,
        }),
      },
    ]);
    const unknown = collect();
    api.live.subscribe(JOB_PROGRESS, { jobId: 'job_none' }, unknown.sink);
    await expect.poll(() => unknown.errors).toEqual([{ dropped: false, code: 'NOT_FOUND' }]);
    api.dispose();
  });

  it('refuses a wrong token at connection_init with 4403, as the server does', async () => {
    const socket = new WebSocket(endpoint.replace('http', 'ws'), 'graphql-transport-ws');
    const closed = new Promise<number>((resolve) => socket.addEventListener('close', (e) => resolve(e.code)));
    socket.addEventListener('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer nope' } })),
    );
    expect(await closed).toBe(4403);
  });

  it('closes a socket that subscribes before connection_init (4401) or sends bytes that are not JSON (4400)', async () => {
    const early = new WebSocket(endpoint.replace('http', 'ws'), 'graphql-transport-ws');
    const earlyClosed = new Promise<number>((resolve) => early.addEventListener('close', (e) => resolve(e.code)));
    early.addEventListener('open', () =>
      early.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: '{x}' } })),
    );
    expect(await earlyClosed).toBe(4401);
    const garbage = new WebSocket(endpoint.replace('http', 'ws'), 'graphql-transport-ws');
    const garbageClosed = new Promise<number>((resolve) => garbage.addEventListener('close', (e) => resolve(e.code)));
    garbage.addEventListener('open', () => garbage.send('{not json'));
    expect(await garbageClosed).toBe(4400);
  });
});
