// @vitest-environment jsdom
// A host's front-end test: the installed widget, mounted in a page, talks to msw handlers that
// answer its GraphQL operations from an in-memory fake (no server).

import { agentTeamsHandlers, createWidgetFake } from '@agent-teams/testkit/msw';
import { mount } from '@agent-teams/widget';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';

const endpoint = 'http://host.test/graphql';
const fake = createWidgetFake();
const team = fake.createTeam({
  name: 'Launch crew',
  goal: 'Ship',
  members: [
    { name: 'Ada', agentId: 'researcher' },
    { name: 'Bo', agentId: 'writer' },
  ],
});
const server = setupServer(...agentTeamsHandlers({ endpoint, token: 'host-token', fake }));
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterAll(() => server.close());

/** The text the widget shows: it renders inside a shadow root below `host`. */
const shown = (host) => [...host.querySelectorAll('*')].map((el) => el.shadowRoot?.textContent ?? '').join(' ');

it('mounts the widget and shows the team the fake holds', async () => {
  const host = document.createElement('div');
  document.body.append(host);
  const widget = mount(host, { endpoint, token: 'host-token' });
  await vi.waitFor(() => expect(shown(host)).toContain('Launch crew'), { timeout: 10_000 });
  widget.dispose();
});

it('shows a request that arrives while it is open, live over the WebSocket', async () => {
  const host = document.createElement('div');
  document.body.append(host);
  const widget = mount(host, { endpoint, token: 'host-token' });
  await vi.waitFor(() => expect(shown(host)).toContain('Launch crew'), { timeout: 10_000 });
  // Sent by the test, not the page: only the teamEvents subscription can bring it in.
  fake.sendRequest({ teamId: team.id, memberIds: [team.members[1].id], text: 'draft the notes' });
  await vi.waitFor(() => expect(shown(host)).toContain('Done: draft the notes'), { timeout: 10_000 });
  widget.dispose();
});
