import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTeam,
  hostPage,
  launchBrowser,
  sendRequest,
  startServer,
  type TestServer,
  widgetTag,
} from './harness.js';

/**
 * What a person has begun survives the widget's own comings and goings: drafts (the composer's
 * text and recipients, an answer to a waiting question) outlive a look at another team, and a
 * view whose chunk failed to load (offline) loads on the next press instead of needing two.
 */
describe('drafts and retries in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  const showTeam = async (name: string) => {
    await page.getByRole('navigation').getByRole('button', { name, exact: true }).click();
    await page.getByRole('heading', { name, exact: true }).waitFor();
  };

  beforeAll(async () => {
    server = await startServer();
    const launch = await createTeam(server, 'Launch', [
      { name: 'Research', agentId: 'researcher' },
      { name: 'Review', agentId: 'reviewer' },
    ]);
    await createTeam(server, 'Other', [
      { name: 'Scout', agentId: 'researcher' },
      { name: 'Check', agentId: 'reviewer' },
    ]);
    const review = launch.members.find((m) => m.name === 'Review');
    await sendRequest(server, launch.id, review?.id ?? '', '!ask Which region?');
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await hostPage(context, server, widgetTag(`team="${launch.id}"`), { errors: pageErrors });
    await page.getByText('● Live updates').waitFor();
  });

  afterAll(async () => {
    try {
      if (page !== undefined) expect(pageErrors).toEqual([]);
    } finally {
      await browser?.close();
      await server?.close();
    }
  });

  it('gives back the composer draft, its recipients and an unsent answer after another team was shown', async () => {
    const composer = page.getByLabel('Message to team');
    await composer.click();
    await composer.pressSequentially('@Res');
    await page.getByRole('option', { name: '@Research' }).waitFor();
    await composer.press('Enter');
    await composer.fill('Half a sentence, مرحبا 😀');
    const answer = page.getByLabel('Your answer');
    await answer.fill('eu-west, probably');

    await showTeam('Other');
    expect(await page.getByLabel('Message to team').inputValue()).toBe('');
    await showTeam('Launch');

    expect(await composer.inputValue()).toBe('Half a sentence, مرحبا 😀');
    await page.getByRole('button', { name: 'Remove recipient Research' }).waitFor();
    expect(await answer.inputValue()).toBe('eu-west, probably');
    // The kept answer is the one sent: the card stops asking and shows the agent's reply.
    await page.getByRole('button', { name: 'Submit response' }).click();
    await page.getByText('answered: eu-west, probably').waitFor();
  });

  it('shows the task board on the next press after its chunk failed to load', async () => {
    let refused = 0;
    await page.route('**/widget-task-board-*.js', (route) => {
      refused++;
      return route.abort('internetdisconnected');
    });
    const toggle = page.getByRole('button', { name: 'Task board' });
    await toggle.click();
    await page.getByText(/Request failed/).waitFor();
    expect(refused).toBe(1);
    // Not left pressed over the feed it did not replace.
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    expect(await page.getByRole('region', { name: 'Team activity' }).isVisible()).toBe(true);

    await page.unroute('**/widget-task-board-*.js');
    await toggle.click();
    await page.getByRole('region', { name: 'Task board' }).waitFor();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByRole('region', { name: 'Team activity' }).isVisible()).toBe(false);
  });
});
