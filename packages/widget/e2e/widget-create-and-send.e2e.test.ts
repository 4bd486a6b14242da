import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostPage, launchBrowser, startServer, type TestServer, widgetTag } from './harness.js';
import { teamDriver } from './team-driver.js';

/**
 * The widget in real Chromium against the real api server with scripted agents, from a plain-HTTP
 * page to a team at work: the catalog, the team's creation, mentions and sends, streamed, broadcast
 * and cancelled tasks, questions answered in their cards. The cases run in order and share one
 * team, like a person working through the product; widget-feed-and-teardown.e2e.test.ts goes on
 * from such a team.
 */
describe('the widget in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const {
    pageErrors,
    errorCodes,
    instrument,
    composer,
    cards,
    lastCard,
    mutations,
    sendTo,
    waitForCards,
    waitForStatus,
    rejects,
  } = teamDriver(() => page);

  /** A host page with the element and the token passed as an attribute, instrumented. */
  const openPage = () => hostPage(context, server, widgetTag(), { errors: pageErrors, beforeLoad: instrument });

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    try {
      // What the last cases of widget-feed-and-teardown.e2e.test.ts check of their pages, for
      // these, with the page still open: no page error, and every document the widget sent passed
      // the server's limits. Skipped when no page opened (the set-up's own failure is the report).
      if (page !== undefined) {
        expect(pageErrors).toEqual([]);
        expect([...errorCodes]).toEqual(['CATALOG_UNAVAILABLE']);
      }
    } finally {
      await browser?.close();
      await server?.close();
    }
  });

  it('loads on a plain-HTTP origin without crypto.randomUUID and shows the catalog error', async () => {
    page = await openPage();
    expect(await page.evaluate(() => [isSecureContext, typeof crypto.randomUUID])).toEqual([false, 'undefined']);
    await page.getByText('Cannot load agents').waitFor();
    expect(await page.getByRole('button', { name: 'Create team' }).isDisabled()).toBe(true);
    expect(await page.getByRole('checkbox').count()).toBe(0);
  });

  it('retries the catalog, searches it and creates a team', async () => {
    await page.getByRole('button', { name: 'Reload agents' }).click();
    await page.getByLabel('Search agents').fill('source evidence');
    await page.getByRole('checkbox', { name: 'Research' }).check();
    expect(await page.getByRole('checkbox', { name: 'Review' }).count()).toBe(0);
    await page.getByLabel('Search agents').fill('quality');
    await page.getByRole('checkbox', { name: 'Review' }).check();
    await page.getByLabel('Search agents').fill('');
    await page.getByText('2 / 8 selected').waitFor();
    await page.getByRole('button', { name: 'Remove Review' }).waitFor();
    await rejects(
      page.getByLabel('Team name'),
      'T'.repeat(81),
      page.getByRole('button', { name: 'Create team' }),
      'Create',
      'Team name must be at most 80 characters and 160 UTF-8 bytes.',
    );
    await rejects(
      page.getByLabel('Team name'),
      '中'.repeat(54),
      page.getByRole('button', { name: 'Create team' }),
      'Create',
      'Team name must be at most 80 characters and 160 UTF-8 bytes.',
    );
    await page.getByLabel('Team name').fill('Release readiness');
    await rejects(
      page.getByLabel('Shared goal'),
      '😀'.repeat(1001),
      page.getByRole('button', { name: 'Create team' }),
      'Create',
      'Shared goal must be at most 2000 characters and 4000 UTF-8 bytes.',
    );
    await page.getByLabel('Shared goal').fill('Check the release evidence.');
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.getByRole('heading', { name: 'Release readiness' }).waitFor();
    await page.getByText('● Live updates').waitFor();
  });

  it('mentions by keyboard, sends with Ctrl+Enter and keeps a new draft', async () => {
    await composer().pressSequentially('@Res');
    await page.getByRole('option', { name: '@Research' }).waitFor();
    await composer().press('ArrowDown');
    await composer().press('ArrowUp');
    await composer().press('Enter');
    await page.getByRole('button', { name: 'Remove recipient Research' }).waitFor();
    expect(await composer().inputValue()).toBe('');
    await composer().pressSequentially('Check the notes');
    await composer().press('Enter'); // a newline, not a send
    await composer().pressSequentially('please');
    expect(mutations('Send')).toBe(0);
    await composer().press('Control+Enter');
    await waitForCards(1);
    await composer().pressSequentially('next draft');
    await page.getByText('Research: Check the notes').waitFor();
    expect(await lastCard().locator('.route').textContent()).toBe('You → @Research');
    expect(await composer().inputValue()).toBe('next draft');
    expect(mutations('Send')).toBe(1);
    await composer().fill('');
    // The link hook: the host opens the member's conversation.
    await page.evaluate(() => {
      const el = document.querySelector('agent-teams-widget') as HTMLElement & { onOpenConversation: unknown };
      el.onOpenConversation = (id: string) => el.setAttribute('data-opened', id);
    });
    await page.getByRole('button', { name: 'Open Research conversation' }).click();
    expect(await page.locator('agent-teams-widget').getAttribute('data-opened')).toMatch(/\S/);
    // The host showed it, so the widget's own view stayed closed.
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.evaluate(() => {
      (
        document.querySelector('agent-teams-widget') as HTMLElement & { onOpenConversation: unknown }
      ).onOpenConversation = undefined;
    });
  });

  it('routes by chips only: a plain name in the text does not pick a recipient', async () => {
    const before = mutations('Send');
    await composer().fill('Review this please');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('listbox').waitFor();
    expect(mutations('Send')).toBe(before);
    await composer().press('Escape');
    expect(await page.getByRole('listbox').count()).toBe(0);
    await composer().fill('');
  });

  it('shows streamed text on a running card, then the result', async () => {
    await sendTo(['Research'], 'Stream it\n!sleep 700\n!stream 4\n!sleep 1500\n!reply streamed done');
    await waitForCards(2);
    await waitForStatus(lastCard(), 'RUNNING');
    await lastCard().getByText('Task details').click();
    await lastCard().locator('.text.muted').waitFor({ timeout: 10_000 });
    await waitForStatus(lastCard(), 'COMPLETED');
    // The update replaced the status and the result, not the card: its details stay open.
    expect(await lastCard().locator('details').getAttribute('open')).not.toBeNull();
    expect(await lastCard().locator('.result').textContent()).toContain('streamed done');
  });

  it('broadcasts to every member with @all', async () => {
    await composer().click();
    await composer().pressSequentially('@all');
    await page.getByRole('option', { name: /@all/ }).waitFor();
    await composer().press('Enter');
    await page.getByRole('button', { name: 'Remove recipient Review' }).waitFor();
    await page.getByRole('button', { name: 'Remove recipient Research' }).waitFor();
    await composer().fill('Status report');
    await composer().press('Control+Enter');
    await waitForCards(4);
    await page.getByText('Review: Status report').waitFor();
    await page.getByText('Research: Status report').waitFor();
  });

  it('cancels a running task from its details', async () => {
    await sendTo(['Review'], 'Long task\n!sleep 60000');
    await waitForCards(5);
    const card = lastCard();
    await waitForStatus(card, 'RUNNING');
    await page.getByRole('img', { name: 'Review: Running' }).waitFor();
    await card.getByText('Task details').click();
    await card.getByRole('button', { name: 'Cancel task' }).click();
    await waitForStatus(card, 'CANCELLED');
    await page.getByRole('img', { name: 'Review: Idle' }).waitFor();
  });

  it('answers a clarification in the card, checking the answer limits first', async () => {
    const before = await cards().count();
    await sendTo(['Research'], 'Clarify\n!ask Which environment should I check?');
    await waitForCards(before + 1);
    const card = lastCard();
    await waitForStatus(card, 'WAITING_INPUT');
    await page.getByText('1 waiting for you').waitFor();
    // The question and its answer box are on the card itself, named for who asks.
    await card.getByRole('group', { name: 'Research asks' }).getByText('Which environment should I check?').waitFor();
    const answer = card.getByLabel('Your answer');
    const submit = card.getByRole('button', { name: 'Submit response' });
    const message = 'Your answer must be at most 4000 characters and 8000 UTF-8 bytes.';
    await rejects(answer, '研'.repeat(2667), submit, 'Respond', message);
    await rejects(answer, 'a'.repeat(4001), submit, 'Respond', message);
    await answer.fill('staging');
    await submit.click();
    await waitForStatus(card, 'COMPLETED');
    expect(await card.locator('.result').textContent()).toContain('answered: staging');
    await page.getByText('0 waiting for you').waitFor();
  });

  it('answers an interrupt with JSON', async () => {
    const before = await cards().count();
    await sendTo(['Review'], 'Approve?\n!interrupt {"action":"deploy"}');
    await waitForCards(before + 1);
    const card = lastCard();
    await waitForStatus(card, 'WAITING_INPUT');
    const answer = card.getByLabel('Inspect the conversation, then enter the explicit response as JSON');
    const submit = card.getByRole('button', { name: 'Submit response' });
    await rejects(answer, '{not json', submit, 'Respond', 'The response must be valid JSON.');
    await answer.fill('{"approve": true}');
    await submit.click();
    await waitForStatus(card, 'COMPLETED');
    expect(await card.locator('.result').textContent()).toContain('resumed: {"approve":true}');
  });
});
