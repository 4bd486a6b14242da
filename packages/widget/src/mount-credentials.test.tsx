import { agentTeamsHandlers, createWidgetFake } from '@agent-teams/testkit/msw';
import { within } from '@solidjs/testing-library';
import type { RequestHandler } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ELEMENT_NAME, mount } from './index.js';

const endpoint = 'http://credentials.test/graphql';
const fake = createWidgetFake({ reply: (text) => `ok: ${text}` });
const server = setupServer(...(agentTeamsHandlers({ endpoint, token: 'tok', fake }) as unknown as RequestHandler[]));
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

const team = fake.createTeam({
  name: 'Host user team',
  goal: 'Be seen once signed in',
  members: [
    { name: 'Ada', agentId: 'researcher' },
    { name: 'Bo', agentId: 'writer' },
  ],
});

/**
 * The README's embedding snippet loads `widget.js` first and sets `getToken` in a later script:
 * the element is upgraded (and mounted) before the host's script runs, so its first reads go
 * out without a token. Getting credentials then must read again instead of keeping what the
 * token-less reads answered (UNAUTHENTICATED, no teams).
 */
describe('credentials given after the widget started', () => {
  it('reads again when the element gets getToken after it was connected', async () => {
    const el = document.createElement(ELEMENT_NAME) as HTMLElement & { getToken?: () => Promise<string> };
    el.setAttribute('endpoint', endpoint);
    el.setAttribute('team', team.id);
    document.body.append(el);
    // The host's script, running after the widget module upgraded the element.
    await new Promise((resolve) => setTimeout(resolve, 50));
    el.getToken = async () => 'tok';
    // The holder the widget renders into stays across a restart; what is inside it may not.
    const view = within(el.shadowRoot?.firstElementChild as HTMLElement);
    await view.findByRole('heading', { name: 'Host user team' }, { timeout: 3000 });
    expect(el.shadowRoot?.textContent).not.toContain('UNAUTHENTICATED');
    el.remove();
  });

  it('reads again when mount() is given a token after it started without one', async () => {
    const host = document.createElement('div');
    document.body.append(host);
    const handle = mount(host, { endpoint, team: team.id });
    await new Promise((resolve) => setTimeout(resolve, 50));
    handle.update({ token: 'tok' });
    const shadow = (host.firstElementChild as HTMLElement).shadowRoot as ShadowRoot;
    const view = within(shadow.firstElementChild as HTMLElement);
    await view.findByRole('heading', { name: 'Host user team' }, { timeout: 3000 });
    expect(shadow.textContent).not.toContain('UNAUTHENTICATED');
    handle.dispose();
    host.remove();
  });
});
