import { fireEvent, render, screen, waitFor } from '@solidjs/testing-library';
import { graphql, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_ENDPOINT, withContext } from './test-context.js';
import { member, NO_USAGE } from './test-team.js';
import { Workspace } from './workspace.js';

let status = 'READY';
const members = [member('m1', 'Research'), member('m2', 'Review')];
const link = graphql.link(TEST_ENDPOINT);
const server = setupServer(
  link.query('Team', () =>
    HttpResponse.json({ data: { team: { id: 't1', name: 'Launch', goal: 'Ship', status, usage: NO_USAGE, members } } }),
  ),
  link.query('Usage', () => HttpResponse.json({ data: { team: { id: 't1', usage: NO_USAGE, members } } })),
  link.query('Activity', () =>
    HttpResponse.json({
      data: {
        team: {
          id: 't1',
          status,
          lastEventSeq: 3,
          members: members.map(({ id }) => ({ id, status: 'IDLE' })),
          waiting: { edges: [] },
          activity: {
            __typename: 'ActivityPage',
            revision: 'r1',
            jobs: { pageInfo: { hasNextPage: false, endCursor: null }, edges: [] },
          },
        },
      },
    }),
  ),
  link.query('Messages', () =>
    HttpResponse.json({ data: { team: { id: 't1', messages: { pageInfo: { hasNextPage: false }, edges: [] } } } }),
  ),
  link.query('Budget', () =>
    HttpResponse.json({
      data: { team: { id: 't1', budget: { maxTokens: null, maxCost: null, usedTokens: 0, usedCost: 0 } } },
    }),
  ),
  link.query('Conversation', ({ variables }) =>
    HttpResponse.json({
      data: {
        node: {
          id: variables.id,
          conversation: {
            pageInfo: { hasNextPage: false, endCursor: 'c1' },
            edges: [
              { cursor: 'c1', node: { id: 'x1', role: 'USER', text: 'Check it', toolName: null, createdAt: '' } },
              {
                cursor: 'c2',
                node: { id: 'x2', role: 'ASSISTANT', text: '{}', toolName: 'read_team_context', createdAt: '' },
              },
              {
                cursor: 'c3',
                node: { id: 'x3', role: 'TOOL', text: '{"goal":"Ship"}', toolName: 'read_team_context', createdAt: '' },
              },
            ],
          },
        },
      },
    }),
  ),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  status = 'READY';
});
afterAll(() => server.close());

function setup(hostOpens = false) {
  const context = withContext(() => <Workspace teamId="t1" onDeleted={() => {}} />, 'en', hostOpens);
  vi.spyOn(context.api.live, 'subscribe').mockImplementation(() => () => {});
  render(context.view);
  return context;
}

describe('Workspace', () => {
  it('opens the conversation view from its chunk, named for the member; Escape closes it and focus returns', async () => {
    setup();
    const open = await screen.findByRole('button', { name: 'Open Research conversation' });
    open.focus();
    fireEvent.click(open);
    const dialog = await screen.findByRole('dialog', { name: 'Research · Conversation' });
    await waitFor(() => expect(dialog.textContent).toContain('Check it'));
    expect([...dialog.querySelectorAll('.who')].map((label) => label.textContent)).toEqual([
      'Input',
      'Tool call · read_team_context',
      'Tool result · read_team_context',
    ]);
    expect(document.activeElement?.textContent).toBe('Close');
    fireEvent.keyDown(dialog, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(document.activeElement).toBe(open);
  });

  it('leaves the conversation to a host that shows it itself', async () => {
    const { opened } = setup(true);
    fireEvent.click(await screen.findByRole('button', { name: 'Open Review conversation' }));
    expect(opened).toEqual(['c-m2']);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('takes no new work in a closed team: no composer, the reason shown', async () => {
    status = 'CLOSED';
    setup();
    await screen.findByText('This team is closed: its record stays readable, but it takes no new work.');
    expect(screen.queryByLabelText('Message to team')).toBeNull();
  });
});
