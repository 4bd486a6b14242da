import { agentTeamsHandlers, createWidgetFake } from '@agent-teams/testkit/msw';
import { fireEvent, waitFor, within } from '@solidjs/testing-library';
import { graphql, HttpResponse, http, type RequestHandler, type WebSocketHandler, ws } from 'msw';
import { setupServer } from 'msw/node';
import { createRoot } from 'solid-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApi, TEAMS_QUERY } from './api.js';
import { mount } from './mount.js';
import { createStatusLine } from './status-line.js';

const endpoint = 'http://status.test/graphql';
const NETWORK = 'Request failed (NETWORK).';
const fake = createWidgetFake({ reply: (text) => `ok: ${text}` });
const handlers = agentTeamsHandlers({ endpoint, token: 'tok', fake }) as unknown as RequestHandler[];
/** While true the server is unreachable: every POST fails as fetch does offline, every socket is closed. */
let down = false;
const sockets: { close(code: number, reason: string): void }[] = [];
const outage = [
  http.post(endpoint, () => (down ? HttpResponse.error() : undefined)),
  ws.link(endpoint.replace('http', 'ws')).addEventListener('connection', ({ client }) => {
    if (down) return client.close(4500, 'Unreachable');
    sockets.push(client);
  }),
] as unknown as (RequestHandler | WebSocketHandler)[];
const server = setupServer(...outage, ...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  down = false;
  sockets.length = 0;
  server.resetHandlers();
});
afterAll(() => server.close());

const team = fake.createTeam({
  name: 'Status',
  goal: 'Watch the line',
  members: [
    { name: 'Ada', agentId: 'researcher' },
    { name: 'Bo', agentId: 'writer' },
  ],
});

/** Mounts the whole widget on `team`; the returned queries look inside its shadow root. */
async function mountWidget() {
  const host = document.createElement('div');
  document.body.append(host);
  const handle = mount(host, { endpoint, token: 'tok', team: team.id });
  const root = (host.firstElementChild as HTMLElement).shadowRoot?.querySelector('.root') as HTMLElement;
  const view = within(root);
  const line = () => root.querySelector('.top .status') as HTMLElement;
  const dispose = () => {
    handle.dispose();
    host.remove();
  };
  await view.findByText('● Live updates', {}, { timeout: 3000 });
  return { view, line, dispose };
}

/** Takes the server away (the socket drops), sends from the composer and answers with `fail`. */
async function sendWhileDown(view: ReturnType<typeof within>, fail: () => Response) {
  server.use(graphql.link(endpoint).mutation('Send', fail));
  down = true;
  for (const socket of sockets.splice(0)) socket.close(4500, 'Unreachable');
  await view.findByText('Updates interrupted · retrying automatically');
  const box = view.getByLabelText('Message to team') as HTMLTextAreaElement;
  const type = (value: string) => {
    box.value = value;
    box.setSelectionRange(value.length, value.length);
    fireEvent.input(box);
  };
  type('@Ada');
  fireEvent.keyDown(box, { key: 'Enter' });
  type('Check it');
  fireEvent.keyDown(box, { key: 'Enter', ctrlKey: true });
}

describe('the status line after a failed request', () => {
  it('clears a NETWORK error once the server answers again and the live feed is back', async () => {
    const { view, line, dispose } = await mountWidget();
    await sendWhileDown(view, () => HttpResponse.error());
    await waitFor(() => expect(line().textContent).toBe(NETWORK));
    expect(line().hidden).toBe(false);
    down = false;
    // The feed's retry (within its 2 s period) reads the team and subscribes again.
    await view.findByText('● Live updates', {}, { timeout: 5000 });
    await waitFor(() => expect(line().hidden).toBe(true));
    expect(line().textContent).toBe('');
    dispose();
  });

  it('keeps an error with a GraphQL code until the next action, also when the feed is back', async () => {
    const { view, line, dispose } = await mountWidget();
    const refused = { message: 'Closed.', extensions: { code: 'TEAM_CLOSED' } };
    await sendWhileDown(view, () => HttpResponse.json({ data: null, errors: [refused] }));
    await waitFor(() => expect(line().textContent).toBe('Request failed (TEAM_CLOSED).'));
    down = false;
    await view.findByText('● Live updates', {}, { timeout: 5000 });
    expect(line().textContent).toBe('Request failed (TEAM_CLOSED).');
    expect(line().hidden).toBe(false);
    dispose();
  });
});

describe('createStatusLine', () => {
  /** A status line on a real API client; `network` is the NETWORK sentence. */
  function setup() {
    const api = createApi({ endpoint, token: async () => 'tok' });
    const status = createRoot(() => createStatusLine(api, () => NETWORK));
    return { api, status };
  }

  it('clears a NETWORK message when the socket is acknowledged again', async () => {
    const { api, status } = setup();
    status.show(NETWORK);
    const up = new Promise<void>((resolve) => api.live.onStatus((ok) => ok && resolve()));
    const stop = api.live.subscribe(
      'subscription Events($teamId: ID!) { teamEvents(teamId: $teamId) { seq } }',
      {
        teamId: team.id,
      },
      { next: () => {}, error: () => {}, complete: () => {} },
    );
    await up;
    expect(status.message()).toBe('');
    stop();
    api.dispose();
  });

  it('is not cleared by an answer to a request sent before the failure, nor by a failed one', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    server.use(
      graphql.link(endpoint).query('Slow', async () => {
        await held;
        return HttpResponse.json({ data: { viewer: { id: 'v' } } });
      }),
    );
    const { api, status } = setup();
    const slow = api.query('query Slow { viewer { id } }');
    await new Promise((resolve) => setTimeout(resolve, 20));
    status.show(NETWORK);
    release();
    await slow;
    expect(status.message()).toBe(NETWORK);
    down = true;
    await api.query(TEAMS_QUERY).catch(() => {});
    expect(status.message()).toBe(NETWORK);
    down = false;
    await api.query(TEAMS_QUERY).catch(() => {});
    expect(status.message()).toBe('');
    api.dispose();
  });

  it('keeps any other message, and a new message replaces the NETWORK one for good', async () => {
    const { api, status } = setup();
    status.show('Request failed (TEAM_CLOSED).');
    await api.query(TEAMS_QUERY).catch(() => {});
    expect(status.message()).toBe('Request failed (TEAM_CLOSED).');
    status.show(NETWORK);
    status.show('Task must not be blank.');
    await api.query(TEAMS_QUERY).catch(() => {});
    expect(status.message()).toBe('Task must not be blank.');
    api.dispose();
  });
});
