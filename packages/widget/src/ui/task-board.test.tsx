import { fireEvent, render, screen, waitFor, within } from '@solidjs/testing-library';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ASSIGN_TASK, UPDATE_TASK } from '../task-board-api.js';
import { boardServer, renderBoard } from './test-board.js';
import { withContext } from './test-context.js';
import { Workspace } from './workspace.js';

const api = boardServer();
beforeAll(() => api.server.listen({ onUnhandledRequest: 'error' }));
beforeEach(() => api.reset());
afterAll(() => api.server.close());

const column = (name: RegExp) => screen.getByRole('region', { name });
const card = (title: string) => screen.getByRole('article', { name: title });

describe('TaskBoard', () => {
  it('opens from its chunk with the Task board toggle, in place of the activity feed', async () => {
    await api.create('Loaded lazily');
    const context = withContext(() => <Workspace teamId="t1" onDeleted={() => {}} />);
    vi.spyOn(context.api.live, 'subscribe').mockImplementation(() => () => {});
    render(context.view);
    const toggle = await screen.findByRole('button', { name: 'Task board' });
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    expect(screen.queryByRole('region', { name: 'Task board' })).toBeNull();
    fireEvent.click(toggle);
    await screen.findByRole('article', { name: 'Loaded lazily' });
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    expect((document.querySelector('.feed') as HTMLElement).hidden).toBe(true);
    fireEvent.click(toggle);
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Task board' })).toBeNull());
    expect(screen.getByRole('region', { name: 'Team activity' }).hidden).toBe(false);
  });

  it('groups tasks by status with owner, dependencies (open ones marked), revision and write scopes', async () => {
    const spec = await api.create('Write spec', { writeScope: ['docs/spec.md'] });
    const code = await api.create('Build it', { dependsOn: [spec.id], writeScope: ['src/', 'tests/'] });
    await api.write(ASSIGN_TASK, { taskId: code.id, expectedRevision: 1, memberId: null });
    const done = await api.create('Plan');
    await api.write(UPDATE_TASK, { taskId: done.id, expectedRevision: 1, title: 'Plan v2' });
    const review = await api.create('Review');
    await api.write(ASSIGN_TASK, { taskId: review.id, expectedRevision: 1, memberId: 'm2' });
    renderBoard();
    await screen.findByRole('article', { name: 'Build it' });
    expect(
      within(column(/^Open \(3\)/))
        .getAllByRole('article')
        .map((a) => a.getAttribute('aria-labelledby')),
    ).toEqual([`at-task-${spec.id}`, `at-task-${code.id}`, `at-task-${done.id}`]);
    expect(within(column(/^Claimed \(1\)/)).getByRole('article').textContent).toContain('Review');
    expect(column(/^Done \(0\)/).textContent).toContain('No tasks.');
    const build = card('Build it');
    expect(build.textContent).toContain('Revision 1');
    expect(build.textContent).toContain('Write spec (not done)');
    expect(build.querySelector('.dep.open')?.textContent).toBe('Write spec (not done)');
    expect(build.textContent).toContain('src/, tests/');
    expect(build.textContent).toContain('OwnerUnassigned');
    expect(card('Review').textContent).toContain('OwnerReview');
    expect(card('Plan v2').textContent).toContain('Revision 2');
    expect(screen.getByText('4 of 256 tasks')).toBeTruthy();
  });

  it('follows the cursors when the team has more tasks than a page', async () => {
    for (let i = 1; i <= 60; i++) await api.create(`Task ${i}`);
    renderBoard();
    await screen.findByText('60 of 256 tasks');
    expect(screen.getByRole('article', { name: 'Task 60' })).toBeTruthy();
  });

  it('updates live from TaskChanged, resuming after the seq read with the board, and announces it', async () => {
    const task = await api.create('Docs');
    const { subscriptions } = renderBoard();
    await screen.findByRole('article', { name: 'Docs' });
    await waitFor(() => expect(subscriptions).toHaveLength(1));
    // Creating Docs was the team's event 1.
    expect(subscriptions[0]?.variables).toEqual({ teamId: 't1', afterSeq: 1 });
    const sink = subscriptions[0]?.sink;
    const claimed = { ...task, status: 'CLAIMED', revision: 2, owner: { id: 'm1', name: 'Research' } };
    sink?.next({ teamEvents: { __typename: 'TaskChanged', seq: 2, reason: null, task: claimed } });
    await waitFor(() =>
      expect(within(column(/^Claimed \(1\)/)).getByRole('article').textContent).toContain('Research'),
    );
    expect(document.querySelector('[aria-live=polite]')?.textContent).toBe('Task “Docs”: Claimed · Research.');
    // An older revision arriving late, or an event already applied, changes nothing.
    sink?.next({ teamEvents: { __typename: 'TaskChanged', seq: 3, reason: null, task: { ...task, title: 'Old' } } });
    sink?.next({ teamEvents: { __typename: 'TaskChanged', seq: 2, reason: null, task: { ...claimed, revision: 9 } } });
    sink?.next({ teamEvents: { __typename: 'MemberChanged', seq: 4 } });
    const released = { ...claimed, status: 'OPEN', revision: 3, owner: null };
    sink?.next({ teamEvents: { __typename: 'TaskChanged', seq: 5, reason: 'Research was retired.', task: released } });
    await waitFor(() => expect(column(/^Open \(1\)/).textContent).toContain('Revision 3'));
    expect(screen.queryByRole('article', { name: 'Old' })).toBeNull();
    expect(document.querySelector('[aria-live=polite]')?.textContent).toBe('Task “Docs”: Open. Research was retired.');
  });

  it("follows another client's writes over testkit's WebSocket (TaskChanged)", async () => {
    const task = await api.create('Watched');
    const { api: client } = renderBoard({ live: true });
    await screen.findByRole('article', { name: 'Watched' });
    await api.write(ASSIGN_TASK, { taskId: task.id, expectedRevision: 1, memberId: 'm1' });
    await waitFor(() => expect(column(/^Claimed \(1\)/).textContent).toContain('Research'));
    await api.write(UPDATE_TASK, { taskId: task.id, expectedRevision: 2, title: 'Watched closely' });
    await screen.findByRole('article', { name: 'Watched closely' });
    expect(screen.queryByText('Updates interrupted · retrying automatically')).toBeNull();
    client.dispose();
  });

  it('reads the board again after RESUME_EXPIRED and resubscribes from the new head', async () => {
    const { subscriptions } = renderBoard();
    await waitFor(() => expect(subscriptions).toHaveLength(1));
    await api.create('Made while away');
    api.fake.teams
      .get('t1')
      ?.jobs.push({ id: 'j', text: '', memberId: 'm1', createdAt: '', status: 'COMPLETED', result: null });
    subscriptions[0]?.sink.error({ dropped: false, code: 'RESUME_EXPIRED' });
    expect(await screen.findByText('Updates interrupted · retrying automatically')).toBeTruthy();
    await screen.findByRole('article', { name: 'Made while away' }, { timeout: 4000 });
    await waitFor(() => expect(subscriptions).toHaveLength(2), { timeout: 4000 });
    expect(subscriptions[1]?.variables).toEqual({ teamId: 't1', afterSeq: 1 });
  });

  it('creates a task with details, a dependency and write scopes, and shows the overlap warning', async () => {
    const base = await api.create('Base', { writeScope: ['src/'] });
    renderBoard();
    await screen.findByRole('article', { name: 'Base' });
    const opener = screen.getByRole('button', { name: 'New task' });
    fireEvent.click(opener);
    const form = screen.getByRole('form', { name: 'New task' });
    expect(document.activeElement).toBe(within(form).getByLabelText('Title'));
    fireEvent.input(within(form).getByLabelText('Title'), { target: { value: 'Parser 🧩' } });
    fireEvent.input(within(form).getByLabelText('Details'), { target: { value: 'Line one' } });
    fireEvent.click(within(form).getByRole('checkbox', { name: 'Base' }));
    fireEvent.input(within(form).getByLabelText('Write scopes (one per line)'), {
      target: { value: 'src/parser.ts\n\n  tests/  \nsrc/parser.ts' },
    });
    fireEvent.click(within(form).getByRole('button', { name: 'Save task' }));
    await screen.findByRole('article', { name: 'Parser 🧩' });
    expect(api.sent).toEqual([
      {
        name: 'CreateTask',
        input: {
          teamId: 't1',
          clientRequestId: expect.any(String),
          title: 'Parser 🧩',
          details: 'Line one',
          dependsOn: [base.id],
          writeScope: ['src/parser.ts', 'tests/'],
        },
      },
    ]);
    expect(screen.getByRole('status').textContent).toBe('Saved. Write scope “src/” overlaps the task “Base”.');
    expect(screen.queryByRole('form')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it('refuses a draft over the limits before sending, keeping what was typed', async () => {
    renderBoard();
    fireEvent.click(await screen.findByRole('button', { name: 'New task' }));
    const title = screen.getByLabelText('Title') as HTMLInputElement;
    fireEvent.input(title, { target: { value: 'x'.repeat(201) } });
    fireEvent.click(screen.getByRole('button', { name: 'Save task' }));
    const alert = await screen.findByText('Title must be at most 200 characters and 800 UTF-8 bytes.');
    expect(alert.id).toBe(title.getAttribute('aria-describedby'));
    fireEvent.input(title, { target: { value: 'ok' } });
    fireEvent.input(screen.getByLabelText('Write scopes (one per line)'), {
      target: { value: Array.from({ length: 21 }, (_, i) => `s${i}`).join('\n') },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save task' }));
    await screen.findByText('Write scopes must hold at most 20 entries.');
    expect(title.value).toBe('ok');
    expect(api.sent).toEqual([]);
    fireEvent.keyDown(title, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    expect(document.activeElement?.textContent).toBe('New task');
  });

  it('shows the board in Chinese with locale="zh"', async () => {
    await api.create('文档');
    renderBoard({ locale: 'zh' });
    const task = await screen.findByRole('article', { name: '文档' });
    expect(screen.getByRole('region', { name: '任务板' })).toBeTruthy();
    expect(column(/^待认领（1）/)).toBeTruthy();
    expect(task.textContent).toContain('版本 1');
    expect(screen.getByRole('button', { name: '新建任务' })).toBeTruthy();
  });

  it('offers no writes in a closed team', async () => {
    await api.create('Frozen');
    renderBoard({ status: 'CLOSED' });
    await screen.findByRole('article', { name: 'Frozen' });
    expect(screen.queryByRole('button', { name: 'New task' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
  });
});
