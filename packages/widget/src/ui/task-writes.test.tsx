import { fireEvent, screen, waitFor, within } from '@solidjs/testing-library';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ASSIGN_TASK, UPDATE_TASK } from '../task-board-api.js';
import { boardServer, renderBoard } from './test-board.js';

const api = boardServer();
beforeAll(() => api.server.listen({ onUnhandledRequest: 'error' }));
beforeEach(() => api.reset());
afterAll(() => api.server.close());

const card = (title: string) => screen.getByRole('article', { name: title });
const alertOf = (title: string) => within(card(title)).getByRole('alert');

/** Opens the edit form of a task's card. */
function edit(title: string) {
  fireEvent.click(within(card(title)).getByRole('button', { name: 'Edit' }));
  return screen.getByRole('form', { name: `Edit “${title}”` });
}

describe('TaskBoard writes', () => {
  it('edits only what changed, with the revision it was opened at', async () => {
    const task = await api.create('Draft', { details: 'Old', writeScope: ['a/'] });
    renderBoard();
    await screen.findByRole('article', { name: 'Draft' });
    const form = edit('Draft');
    fireEvent.input(within(form).getByLabelText('Details'), { target: { value: 'New details' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Save task' }));
    await waitFor(() => expect(card('Draft').textContent).toContain('Revision 2'));
    expect(card('Draft').textContent).toContain('New details');
    expect(api.sent).toEqual([
      { name: 'UpdateTask', input: { taskId: task.id, expectedRevision: 1, details: 'New details' } },
    ]);
  });

  it('assigns to a member and unassigns, each with expectedRevision', async () => {
    const task = await api.create('Fix bug');
    renderBoard();
    await screen.findByRole('article', { name: 'Fix bug' });
    fireEvent.change(screen.getByLabelText('Assign “Fix bug” to'), { target: { value: 'm2' } });
    fireEvent.click(within(card('Fix bug')).getByRole('button', { name: 'Assign' }));
    await waitFor(() => expect(card('Fix bug').textContent).toContain('OwnerReview'));
    expect(screen.getByRole('region', { name: /^Claimed \(1\)/ }).textContent).toContain('Fix bug');
    expect((screen.getByLabelText('Assign “Fix bug” to') as HTMLSelectElement).value).toBe('m2');
    fireEvent.change(screen.getByLabelText('Assign “Fix bug” to'), { target: { value: '' } });
    fireEvent.click(within(card('Fix bug')).getByRole('button', { name: 'Assign' }));
    await waitFor(() => expect(card('Fix bug').textContent).toContain('OwnerUnassigned'));
    expect(api.sent.map((s) => s.input)).toEqual([
      { taskId: task.id, expectedRevision: 1, memberId: 'm2' },
      { taskId: task.id, expectedRevision: 2, memberId: null },
    ]);
  });

  it('cancels a task: it moves to Cancelled and offers no more actions', async () => {
    const task = await api.create('Obsolete');
    renderBoard();
    await screen.findByRole('article', { name: 'Obsolete' });
    fireEvent.click(within(card('Obsolete')).getByRole('button', { name: 'Cancel task' }));
    await waitFor(() =>
      expect(screen.getByRole('region', { name: /^Cancelled \(1\)/ }).textContent).toContain('Obsolete'),
    );
    expect(within(card('Obsolete')).queryByRole('button')).toBeNull();
    expect(api.sent).toEqual([{ name: 'CancelTask', input: { taskId: task.id, expectedRevision: 1 } }]);
  });

  it('names the open dependencies when an assignment is blocked (TASK_BLOCKED)', async () => {
    const spec = await api.create('Spec');
    const tests = await api.create('Tests');
    await api.create('Ship', { dependsOn: [spec.id, tests.id] });
    renderBoard();
    await screen.findByRole('article', { name: 'Ship' });
    fireEvent.change(screen.getByLabelText('Assign “Ship” to'), { target: { value: 'm1' } });
    fireEvent.click(within(card('Ship')).getByRole('button', { name: 'Assign' }));
    await waitFor(() =>
      expect(alertOf('Ship').textContent).toBe('Not assigned: these dependencies are not done yet: Spec, Tests.'),
    );
    expect(within(card('Ship')).getByRole('button', { name: 'Assign' }).getAttribute('aria-describedby')).toBe(
      alertOf('Ship').id,
    );
  });

  it('explains a cycle by task titles (TASK_CYCLE) and keeps the edit open', async () => {
    const a = await api.create('A');
    await api.create('B', { dependsOn: [a.id] });
    renderBoard();
    await screen.findByRole('article', { name: 'B' });
    const form = edit('A');
    fireEvent.click(within(form).getByRole('checkbox', { name: 'B' }));
    fireEvent.click(within(form).getByRole('button', { name: 'Save task' }));
    const alert = await within(form).findByText(/would make a cycle/);
    expect(alert.textContent).toBe('These dependencies would make a cycle: A → B → A.');
    expect((within(form).getByRole('checkbox', { name: 'B' }) as HTMLInputElement).checked).toBe(true);
  });

  it('explains a stale assignment and shows the current version', async () => {
    const task = await api.create('Racy');
    renderBoard();
    await screen.findByRole('article', { name: 'Racy' });
    await api.write(UPDATE_TASK, { taskId: task.id, expectedRevision: 1, title: 'Racy (renamed)' });
    fireEvent.click(within(card('Racy')).getByRole('button', { name: 'Assign' }));
    const alert = await screen.findByText(/changed since you opened it/);
    expect(alert.textContent).toBe(
      'This task changed since you opened it; the current version (revision 2) is shown. Check it and try again.',
    );
    await screen.findByRole('article', { name: 'Racy (renamed)' });
  });

  it('explains a stale edit, shows what changed, and re-applies only the edit onto the current version', async () => {
    const task = await api.create('Report', { details: 'v1', writeScope: ['docs/'] });
    renderBoard();
    await screen.findByRole('article', { name: 'Report' });
    const form = edit('Report');
    fireEvent.input(within(form).getByLabelText('Details'), { target: { value: 'My careful notes' } });
    // Meanwhile someone else renames it and assigns it.
    await api.write(UPDATE_TASK, { taskId: task.id, expectedRevision: 1, title: 'Quarterly report' });
    await api.write(ASSIGN_TASK, { taskId: task.id, expectedRevision: 2, memberId: 'm1' });
    fireEvent.click(within(form).getByRole('button', { name: 'Save task' }));
    await waitFor(() => expect(form.querySelector('.stale')).not.toBeNull());
    const panel = form.querySelector('.stale') as HTMLElement;
    expect(panel.getAttribute('role')).toBe('alert');
    const text = panel.textContent;
    expect(text).toContain('This task changed since you opened it');
    expect(text).toContain('You started from revision 1; it is now at revision 3.');
    expect(text).toContain('TitleReport → Quarterly report');
    expect(text).toContain('OwnerUnassigned → Research');
    expect(text).not.toContain('Details');
    // Nothing typed is lost, and the form cannot be saved onto the old revision again.
    expect((within(form).getByLabelText('Details') as HTMLTextAreaElement).value).toBe('My careful notes');
    expect((within(form).getByRole('button', { name: 'Save task' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(form).getByRole('button', { name: 'Apply my edit to the current version' }));
    await waitFor(() => expect(screen.queryByRole('form')).toBeNull());
    const now = card('Quarterly report');
    expect(now.textContent).toContain('My careful notes');
    expect(now.textContent).toContain('OwnerResearch');
    expect(now.textContent).toContain('Revision 4');
    expect(api.sent.map((s) => s.input)).toEqual([
      { taskId: task.id, expectedRevision: 1, details: 'My careful notes' },
      { taskId: task.id, expectedRevision: 3, details: 'My careful notes' },
    ]);
  });

  it('discards a stale edit: the form shows the current version', async () => {
    const task = await api.create('Notes');
    renderBoard();
    await screen.findByRole('article', { name: 'Notes' });
    const form = edit('Notes');
    fireEvent.input(within(form).getByLabelText('Title'), { target: { value: 'Mine' } });
    await api.write(UPDATE_TASK, { taskId: task.id, expectedRevision: 1, title: 'Theirs' });
    fireEvent.click(within(form).getByRole('button', { name: 'Save task' }));
    fireEvent.click(await within(form).findByRole('button', { name: 'Discard my edit' }));
    expect((within(form).getByLabelText('Title') as HTMLInputElement).value).toBe('Theirs');
    expect(form.querySelector('.stale')).toBeNull();
    expect(api.sent).toHaveLength(1);
  });
});
