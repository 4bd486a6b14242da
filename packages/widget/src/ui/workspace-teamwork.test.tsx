import { fireEvent, render, screen, waitFor, within } from '@solidjs/testing-library';
import { graphql, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Api } from '../api.js';
import type { MessageView } from '../team-feed.js';
import { TEST_ENDPOINT, withContext } from './test-context.js';
import { member, NO_USAGE, request } from './test-team.js';
import { Workspace } from './workspace.js';

// The workspace with the teamwork chunk: live roster changes, team messages in the feed, the
// person's message form, a closed team, the budget and jobs stopped by it.
const lead = { ...member('m1', 'Chief'), role: 'Plans', isLead: true };
const research = member('m2', 'Research');
const spawned = { ...member('m3', 'Scout'), role: 'Finds sources' };
let members = [lead, research];
let status = 'READY';
let budget = { maxTokens: 5000 as number | null, maxCost: null as number | null, usedTokens: 1200, usedCost: 0.5 };
let refuse: string | null = null;
const sent: Record<string, unknown>[] = [];
const setBudgets: Record<string, unknown>[] = [];
const old: MessageView = {
  id: 'msg0',
  from: { name: 'Chief' },
  to: [{ name: 'Research' }],
  text: 'Earlier note',
  delivery: 'QUIET',
  createdAt: '2026-01-01T00:00:00Z',
};
let history = [old];
let historyReads = 0;
const stopped = request('j1', research, {
  status: 'FAILED',
  createdAt: '2026-01-01T00:00:01Z',
  error: "The team's tokens budget would be exceeded: 5000 of 5000 used or reserved.",
  errorCode: 'BUDGET_EXHAUSTED',
  result: { text: null },
});
const link = graphql.link(TEST_ENDPOINT);
const server = setupServer(
  link.query('Team', () =>
    HttpResponse.json({ data: { team: { id: 't1', name: 'Crew', goal: 'Ship', status, usage: NO_USAGE, members } } }),
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
            jobs: { pageInfo: { hasNextPage: false, endCursor: null }, edges: [{ node: stopped }] },
          },
        },
      },
    }),
  ),
  link.query('Messages', () => {
    historyReads++;
    const edges = history.map((node) => ({ node }));
    return HttpResponse.json({ data: { team: { id: 't1', messages: { pageInfo: { hasNextPage: false }, edges } } } });
  }),
  link.query('Budget', () => HttpResponse.json({ data: { team: { id: 't1', budget } } })),
  link.mutation('SendMessage', ({ variables }) => {
    sent.push(variables.input);
    if (refuse) return HttpResponse.json({ errors: [{ message: refuse, extensions: { code: refuse } }] });
    const input = variables.input as { text: string; delivery: 'QUIET' | 'FOLLOW_UP' };
    const message = { ...old, id: `msg${sent.length}`, from: null, text: input.text, delivery: input.delivery };
    return HttpResponse.json({ data: { sendMessage: { message: { ...message, createdAt: '2026-01-01T00:00:09Z' } } } });
  }),
  link.mutation('SetBudget', ({ variables }) => {
    setBudgets.push(variables.input);
    budget = { ...budget, ...(variables.input as object) };
    return HttpResponse.json({ data: { setTeamBudget: { team: { id: 't1', budget } } } });
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  members = [lead, research];
  status = 'READY';
  refuse = null;
  sent.length = 0;
  setBudgets.length = 0;
  history = [old];
  historyReads = 0;
  budget = { maxTokens: 5000, maxCost: null, usedTokens: 1200, usedCost: 0.5 };
});
afterAll(() => server.close());

type Sink = Parameters<Api['live']['subscribe']>[2];

async function setup(locale = 'en') {
  const context = withContext(() => <Workspace teamId="t1" onDeleted={() => {}} />, locale);
  const sinks: Sink[] = [];
  vi.spyOn(context.api.live, 'subscribe').mockImplementation((_q, _v, sink) => {
    sinks.push(sink);
    return () => {};
  });
  render(context.view);
  await waitFor(() => expect(sinks).toHaveLength(1));
  const next = (event: Record<string, unknown>) => sinks.at(-1)?.next({ teamEvents: event });
  return { ...context, next, sinks };
}

const form = () => screen.getByRole('form', { name: 'Message members' });

describe('Workspace with teamwork', () => {
  it('shows spawned and retired members and team messages live, after the history', async () => {
    const { next } = await setup();
    const feed = screen.getByRole('region', { name: 'Team activity' });
    await waitFor(() => expect(within(feed).getByText('Earlier note')).toBeTruthy());
    members = [lead, research, spawned];
    next({ seq: 4, member: { id: 'm3', status: 'IDLE' } });
    expect(await screen.findByRole('img', { name: 'Scout: Idle' })).toBeTruthy();
    expect(screen.getByText('Finds sources')).toBeTruthy();
    // Research is a chosen recipient of the composer when it retires: it is dropped and no longer offered.
    const box = screen.getByLabelText('Message to team') as HTMLTextAreaElement;
    const type = (value: string) => {
      box.value = value;
      box.setSelectionRange(value.length, value.length);
      fireEvent.input(box);
    };
    type('@Res');
    fireEvent.keyDown(box, { key: 'Enter' });
    expect(screen.getByRole('button', { name: 'Remove recipient Research' })).toBeTruthy();
    next({ seq: 5, member: { id: 'm2', status: 'RETIRED' } });
    expect(screen.getByRole('img', { name: 'Research: Retired' })).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Remove recipient Research' })).toBeNull());
    type('@Res');
    expect(screen.queryByRole('option', { name: '@Research' })).toBeNull();
    type('');
    next({
      seq: 6,
      message: {
        ...old,
        id: 'msg9',
        text: 'Check the sources',
        delivery: 'FOLLOW_UP',
        to: [{ name: 'Scout' }],
        createdAt: '2026-01-01T00:00:05Z',
      },
    });
    const item = (await within(feed).findByText('Check the sources')).closest('article') as HTMLElement;
    expect(item.querySelector('.route')?.textContent).toBe('Chief → @Scout');
    expect(item.querySelector('.badge')?.textContent).toBe('follow-up');
    // Oldest first: the history message, the stopped job, the new message.
    expect([...feed.querySelectorAll('article')].map((a) => a.dataset.messageId ?? a.dataset.jobId)).toEqual([
      'msg0',
      'j1',
      'msg9',
    ]);
    // A retired member cannot be messaged.
    fireEvent.click(within(form()).getByText('Message members'));
    expect(within(form()).queryByLabelText('Research')).toBeNull();
    expect(within(form()).getByLabelText('Scout')).toBeTruthy();
  });

  it('reads the message history again when updates are live after polling (events may have been lost)', async () => {
    const { next, sinks } = await setup();
    const feed = screen.getByRole('region', { name: 'Team activity' });
    await within(feed).findByText('Earlier note');
    expect(historyReads).toBe(1);
    history = [old, { ...old, id: 'msg5', text: 'Sent while the socket was down', createdAt: '2026-01-01T00:00:04Z' }];
    sinks[0]?.error({ dropped: true, code: 'RESUME_EXPIRED' });
    await waitFor(() => expect(sinks).toHaveLength(2), { timeout: 5000 });
    next({ seq: 9, team: { status: 'READY' } });
    await within(feed).findByText('Sent while the socket was down');
    expect(historyReads).toBe(2);
    expect(within(feed).getAllByText('Earlier note')).toHaveLength(1);
  });

  it('sends a quiet or follow-up message to the chosen members and explains refusals', async () => {
    await setup();
    await waitFor(() => expect(form()).toBeTruthy());
    const box = within(form()).getByLabelText('Message') as HTMLTextAreaElement;
    const submit = within(form()).getByRole('button', { name: 'Send message' });
    fireEvent.input(box, { target: { value: 'Please hurry' } });
    fireEvent.click(submit);
    expect(await within(form()).findByRole('alert')).toHaveProperty('textContent', 'Choose at least one member.');
    fireEvent.click(within(form()).getByLabelText('Research'));
    fireEvent.click(within(form()).getByLabelText('Quiet: read on their next turn'));
    fireEvent.click(submit);
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toMatchObject({ teamId: 't1', memberIds: ['m2'], text: 'Please hurry', delivery: 'QUIET' });
    expect(await within(form()).findByText('Message sent.')).toBeTruthy();
    expect(box.value).toBe('');
    const feed = screen.getByRole('region', { name: 'Team activity' });
    expect(within(feed).getByText('Please hurry').closest('article')?.querySelector('.route')?.textContent).toBe(
      'You → @Research',
    );
    refuse = 'MAILBOX_FULL';
    fireEvent.input(box, { target: { value: 'More' } });
    fireEvent.click(within(form()).getByLabelText('Follow-up: starts a turn'));
    fireEvent.click(submit);
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]).toMatchObject({ delivery: 'FOLLOW_UP' });
    expect((await within(form()).findByRole('alert')).textContent).toBe(
      'A recipient already has 64 undelivered messages. Wait for its next turn, then send again.',
    );
    expect(box.value).toBe('More');
    expect(box.getAttribute('aria-describedby')).toBe('at-team-message-e');
  });

  it('checks the message limit (4,000 characters, 8,000 bytes) before sending, with the usual wording', async () => {
    refuse = 'TEAM_CLOSED';
    await setup();
    await waitFor(() => expect(form()).toBeTruthy());
    fireEvent.click(within(form()).getByLabelText('Chief'));
    const box = within(form()).getByLabelText('Message');
    const submit = within(form()).getByRole('button', { name: 'Send message' });
    const tooLong = 'Message must be at most 4000 characters and 8000 UTF-8 bytes.';
    for (const [text, ok] of [
      ['a'.repeat(4001), false],
      ['é'.repeat(4001), false],
      ['😀'.repeat(2001), false],
      [`a${'😀'.repeat(2000)}`, false],
      [`abc${'😀'.repeat(1999)}`, true],
      ['a'.repeat(3999), true],
      ['a'.repeat(4000), true],
      ['😀'.repeat(2000), true],
    ] as const) {
      const before = sent.length;
      fireEvent.input(box, { target: { value: text } });
      fireEvent.click(submit);
      const alert = await within(form()).findByRole('alert');
      if (ok) {
        await waitFor(() => expect(sent).toHaveLength(before + 1));
        await waitFor(() => expect(alert.textContent).toBe('The team is closed: it takes no new messages.'));
      } else {
        expect(alert.textContent).toBe(tooLong);
        expect(sent).toHaveLength(before);
      }
    }
  });

  it('turns read-only when the team closes: banner, no composer, message and budget forms disabled', async () => {
    const { next } = await setup();
    await waitFor(() => expect(form()).toBeTruthy());
    expect(screen.getByLabelText('Message to team')).toBeTruthy();
    next({ seq: 4, team: { status: 'CLOSED' } });
    expect(await screen.findByText('This team is closed: its record stays readable, but it takes no new work.'));
    expect(screen.queryByLabelText('Message to team')).toBeNull();
    expect(within(form()).getByText('The team is closed: no new messages.')).toBeTruthy();
    expect(
      (within(form()).getByRole('button', { name: 'Send message' }) as HTMLButtonElement).matches(':disabled'),
    ).toBe(true);
    const save = await screen.findByRole('button', { name: 'Save budget' });
    expect(save.matches(':disabled')).toBe(true);
    // The record stays readable.
    expect(screen.getByText('Earlier note')).toBeTruthy();
  });

  it("shows the budget's use, lets the owner change it and marks a job stopped by it", async () => {
    await setup();
    const panel = await screen.findByRole('region', { name: 'Budget' });
    expect(panel.textContent).toContain('1,200 / 5,000 tokens');
    expect(within(panel).getByRole('meter', { name: 'Budget: tokens' }).getAttribute('value')).toBe('1200');
    const card = document.querySelector('[data-job-id="j1"]') as HTMLElement;
    expect(card.textContent).toContain('Stopped: a spending budget is used up.');
    expect(card.textContent).toContain("The team's tokens budget would be exceeded");
    const tokens = within(panel).getByLabelText('Token limit (empty: none)') as HTMLInputElement;
    const cost = within(panel).getByLabelText('Cost limit (empty: none)') as HTMLInputElement;
    fireEvent.input(tokens, { target: { value: '-3' } });
    fireEvent.click(within(panel).getByRole('button', { name: 'Save budget' }));
    expect((await within(panel).findByRole('alert')).textContent).toBe('Limits must be positive numbers.');
    expect(setBudgets).toHaveLength(0);
    tokens.value = '1000';
    cost.value = '2.5';
    fireEvent.click(within(panel).getByRole('button', { name: 'Save budget' }));
    await waitFor(() => expect(setBudgets).toEqual([{ teamId: 't1', maxTokens: 1000, maxCost: 2.5 }]));
    await waitFor(() => expect(panel.textContent).toContain('Used up: new model calls are refused.'));
    expect(panel.textContent).toContain('cost 0.5 / 2.5');
    tokens.value = '';
    cost.value = '';
    fireEvent.click(within(panel).getByRole('button', { name: 'Save budget' }));
    await waitFor(() => expect(panel.textContent).toContain('No budget set.'));
    expect(setBudgets[1]).toEqual({ teamId: 't1', maxTokens: null, maxCost: null });
  });

  it('shows the legend with the waiting-for-a-change state, the usage and the budget, in Chinese too', async () => {
    await setup('zh');
    const legend = (await screen.findByText('状态图例')).closest('details') as HTMLElement;
    expect(legend.querySelectorAll('li')).toHaveLength(8);
    expect(legend.textContent).toContain('等待变化');
    expect(screen.getByText(/用量与费用/).textContent).toBe('用量与费用: 0 tokens · 费用 0');
    expect((await screen.findByRole('region', { name: '预算' })).textContent).toContain('1,200 / 5,000 tokens');
    const card = document.querySelector('[data-job-id="j1"]') as HTMLElement;
    expect(card.textContent).toContain('已停止：预算已用完。');
    expect(screen.getByRole('form', { name: '给成员发消息' })).toBeTruthy();
  });
});
