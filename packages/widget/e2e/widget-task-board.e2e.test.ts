import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARTIFACTS,
  createTeam,
  graphql,
  hostPage,
  launchBrowser,
  sendRequest,
  startServer,
  type TestServer,
  widgetTag,
} from './harness.js';

type Task = { id: string; title: string; status: string; revision: number };

/**
 * The task board against the real server: two tasks with a dependency made in the page, a
 * blocked assignment, an assignment, a member (scripted runtime) completing its task and a
 * second client renaming one, both shown live; then a stale edit explained and re-applied.
 */
describe('the task board in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let team: { id: string; members: { id: string; name: string }[] };
  const pageErrors: string[] = [];

  const article = (title: string): Locator => page.getByRole('article', { name: title, exact: true });
  const column = (name: RegExp): Locator => page.getByRole('region', { name });
  const tasks = async () =>
    (
      await graphql<{ team: { tasks: { edges: { node: Task }[] } } }>(
        server,
        'query T($id: ID!) { team(id: $id) { tasks(first: 50) { edges { node { id title status revision } } } } }',
        { id: team.id },
      )
    ).team.tasks.edges.map((edge) => edge.node);
  const task = async (title: string) => {
    const found = (await tasks()).find((t) => t.title === title);
    if (!found) throw new Error(`no task ${title}`);
    return found;
  };

  beforeAll(async () => {
    server = await startServer();
    team = await createTeam(server, 'Board', [
      { name: 'Research', agentId: 'researcher' },
      { name: 'Review', agentId: 'reviewer' },
    ]);
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await hostPage(context, server, widgetTag(`team="${team.id}"`), { errors: pageErrors });
    await page.getByText('● Live updates').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('creates two tasks with a dependency, assigns, and shows a member and a second client live', async () => {
    await page.getByRole('button', { name: 'Task board' }).click();
    await page.getByRole('region', { name: 'Task board' }).waitFor();
    await page.getByRole('button', { name: 'New task' }).click();
    await page.getByRole('form', { name: 'New task' }).getByLabel('Title').fill('Spec');
    await page.getByRole('button', { name: 'Save task' }).click();
    await article('Spec').waitFor();
    await page.getByRole('button', { name: 'New task' }).click();
    const form = page.getByRole('form', { name: 'New task' });
    await form.getByLabel('Title').fill('Ship');
    await form.getByRole('checkbox', { name: 'Spec' }).check();
    await form.getByLabel('Write scopes (one per line)').fill('release/');
    await page.getByRole('button', { name: 'Save task' }).click();
    await article('Ship').getByText('Spec (not done)').waitFor();

    // Ship waits for Spec: the server refuses, naming it.
    await page.getByLabel('Assign “Ship” to').selectOption({ label: 'Research' });
    await article('Ship').getByRole('button', { name: 'Assign' }).click();
    await article('Ship').getByRole('alert').getByText('these dependencies are not done yet: Spec.').waitFor();

    await page.getByLabel('Assign “Spec” to').selectOption({ label: 'Review' });
    await article('Spec').getByRole('button', { name: 'Assign' }).click();
    await column(/^Claimed \(1\)/)
      .getByRole('article', { name: 'Spec' })
      .waitFor();
    const spec = await task('Spec');
    expect(spec).toMatchObject({ status: 'CLAIMED', revision: 2 });

    // Review (a scripted member) completes its task with its own tool: the board follows live.
    const args = JSON.stringify({ task_id: spec.id, expected_revision: 2, result: 'written' });
    const reviewId = team.members.find((m) => m.name === 'Review')?.id ?? '';
    await sendRequest(server, team.id, reviewId, `Finish the spec\n!tool task_complete ${args}`);
    await column(/^Done \(1\)/)
      .getByRole('article', { name: 'Spec' })
      .waitFor({ timeout: 20_000 });
    await expect.poll(() => article('Ship').locator('.dep').textContent()).toBe('Spec');

    // A second client renames Ship: the card follows without a reload.
    const ship = await task('Ship');
    await graphql(server, 'mutation U($input: UpdateTaskInput!) { updateTask(input: $input) { task { id } } }', {
      input: { taskId: ship.id, expectedRevision: ship.revision, title: 'Ship 1.0' },
    });
    await article('Ship 1.0').getByText('Revision 2').waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('explains a stale edit, shows what changed, and re-applies the edit onto the current version', async () => {
    await article('Ship 1.0').getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit “Ship 1.0”' });
    await form.getByLabel('Details').fill('Tag, build, announce');
    const ship = await task('Ship 1.0');
    await graphql(server, 'mutation A($input: AssignTaskInput!) { assignTask(input: $input) { task { id } } }', {
      input: { taskId: ship.id, expectedRevision: ship.revision, memberId: team.members[0]?.id },
    });
    await form.getByRole('button', { name: 'Save task' }).click();
    const stale = form.locator('.stale');
    await stale.getByText('This task changed since you opened it').waitFor();
    expect(await stale.textContent()).toContain('You started from revision 2; it is now at revision 3.');
    expect(await stale.textContent()).toContain('OwnerUnassigned → Research');
    expect(await form.getByLabel('Details').inputValue()).toBe('Tag, build, announce');
    await stale.getByRole('button', { name: 'Apply my edit to the current version' }).click();
    await form.waitFor({ state: 'detached' });
    const card = article('Ship 1.0');
    await card.getByText('Tag, build, announce').waitFor();
    await card.getByText('Revision 4').waitFor();
    expect(await card.textContent()).toContain('Research');
    expect(await task('Ship 1.0')).toMatchObject({ status: 'CLAIMED', revision: 4 });
    expect(pageErrors).toEqual([]);
  });

  it('fits a 320 px phone: columns stack and nothing reaches past the widget', async () => {
    const phone = await browser.newContext({ viewport: { width: 320, height: 720 } });
    const small = await hostPage(phone, server, widgetTag(`team="${team.id}"`), { errors: pageErrors });
    await small.getByRole('button', { name: 'Task board' }).click();
    await small.getByRole('article', { name: 'Ship 1.0' }).waitFor();
    await small.getByRole('button', { name: 'New task' }).click();
    const layout = await small.evaluate(() => {
      const shadow = document.querySelector('agent-teams-widget')?.shadowRoot;
      const root = shadow?.querySelector('.root') as HTMLElement;
      const box = root.getBoundingClientRect();
      let right = box.right;
      for (const el of shadow?.querySelectorAll('.root *') ?? []) {
        const rect = el.getBoundingClientRect();
        if (rect.width > 0) right = Math.max(right, rect.right);
      }
      const cols = shadow?.querySelector('.cols') as HTMLElement;
      return {
        columns: getComputedStyle(cols).gridTemplateColumns.split(' ').length,
        overflow: right - box.right,
        pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
      };
    });
    mkdirSync(ARTIFACTS, { recursive: true });
    await small.screenshot({ path: join(ARTIFACTS, 'task-board-320.png'), fullPage: true });
    expect(layout).toEqual({ columns: 1, overflow: expect.any(Number), pageOverflow: 0 });
    expect(layout.overflow).toBeLessThanOrEqual(0.5);
    await phone.close();
    expect(pageErrors).toEqual([]);
  });
});
