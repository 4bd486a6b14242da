import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Locator, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIST, hostPage, launchBrowser, originOf, startServer, type TestServer, TOKEN, widgetTag } from './harness.js';

/**
 * The widget in real Chromium against the real api server with scripted agents. The cases run in
 * order and share one team, like a person working through the product.
 */
describe('the widget in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const operations: string[] = [];
  const sockets: WebSocketRoute[] = [];
  const errorCodes = new Set<string>();
  let failCatalog = 1;

  const composer = () => page.getByLabel('Message to team');
  const cards = () => page.locator('article.card');
  const lastCard = () => cards().last();
  const mutations = (name: string) => operations.filter((op) => op === name).length;

  /** Sends `text` to the members whose chips are chosen by typing `@<name>` + Enter. */
  async function sendTo(names: string[], text: string): Promise<void> {
    for (const name of names) {
      await composer().click();
      await composer().pressSequentially(`@${name.slice(0, 3)}`);
      await page.getByRole('option', { name: `@${name}`, exact: true }).waitFor();
      await composer().press('Enter');
      await page.getByRole('button', { name: `Remove recipient ${name}` }).waitFor();
    }
    await composer().fill(text);
    await composer().press('Control+Enter');
  }

  async function waitForCards(count: number): Promise<void> {
    await page.waitForFunction(
      (n) =>
        (document.querySelector('agent-teams-widget')?.shadowRoot?.querySelectorAll('article.card').length ?? 0) >= n,
      count,
      { timeout: 20_000 },
    );
  }

  async function waitForStatus(card: Locator, status: string): Promise<void> {
    await card.and(page.locator(`[data-status="${status}"]`)).waitFor({ timeout: 20_000 });
  }

  /** Fills a field with an over-limit value, expects the limit message, no request and the draft kept. */
  async function rejects(field: Locator, value: string, submit: Locator, operation: string, message: string) {
    const before = mutations(operation);
    await field.fill(value);
    await submit.click();
    await page.getByText(message).first().waitFor();
    expect(mutations(operation)).toBe(before);
    expect(await field.inputValue()).toBe(value);
  }

  /** What every page of this suite does: record operations and error codes, fail the first catalog read, keep sockets. */
  async function instrument(target: Page): Promise<void> {
    target.on('request', (request) => {
      const match = /(?:mutation|query) (\w+)/.exec(request.postData() ?? '');
      if (match?.[1]) operations.push(match[1]);
    });
    target.on('response', async (response) => {
      if (!response.url().endsWith('/graphql') || response.request().method() !== 'POST') return;
      const body = (await response.json().catch(() => null)) as {
        errors?: { extensions?: { code?: string } }[];
      } | null;
      for (const error of body?.errors ?? []) errorCodes.add(error.extensions?.code ?? 'NONE');
    });
    await target.route('**/graphql', async (route) => {
      if (failCatalog > 0 && (route.request().postData() ?? '').includes('query Agents')) {
        failCatalog--;
        await route.fulfill({
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify({
            data: null,
            errors: [{ message: 'down', extensions: { code: 'CATALOG_UNAVAILABLE' } }],
          }),
        });
        return;
      }
      await route.continue();
    });
    await target.routeWebSocket(/\/graphql$/, (ws) => {
      ws.connectToServer();
      sockets.push(ws);
    });
  }

  /** A host page with the element and the token passed as an attribute, instrumented. */
  const openPage = () => hostPage(context, server, widgetTag(), { errors: pageErrors, beforeLoad: instrument });

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
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

  it('shows a handoff with its route, follow-up note and receipt', async () => {
    const before = await cards().count();
    await sendTo(['Research'], 'Hand this off\n!handoff Review Check the sources');
    await waitForCards(before + 2);
    const handoff = cards().filter({ hasText: 'Research → @Review' });
    await handoff.waitFor({ timeout: 20_000 });
    await handoff.getByText('Follow-up to: Hand this off').waitFor();
    await handoff.getByText('Returned to Research').waitFor({ timeout: 20_000 });
    expect(await cards().nth(before).locator('.result').textContent()).toContain('handed off to Review');
  });

  it('checks the task limits at n−1, n and n+1 in ASCII, CJK and emoji, keeping the draft', async () => {
    const send = page.getByRole('button', { name: 'Send', exact: true });
    const message = 'Task must be at most 4000 characters and 8000 UTF-8 bytes.';
    await page.getByRole('button', { name: 'Mention Research' }).click();
    for (const over of ['a'.repeat(4001), '研'.repeat(2667), '😀'.repeat(2001)]) {
      await rejects(composer(), over, send, 'Send', message);
    }
    let expected = await cards().count();
    for (const ok of ['a'.repeat(3999), '研'.repeat(2666), '😀'.repeat(2000), 'a'.repeat(4000)]) {
      if ((await page.getByRole('button', { name: 'Remove recipient Research' }).count()) === 0) {
        await page.getByRole('button', { name: 'Mention Research' }).click();
      }
      await composer().fill(ok);
      await send.click();
      expected++;
      await waitForCards(expected);
      // The card can arrive over the live feed before the mutation's answer clears the draft.
      await expect.poll(() => composer().inputValue()).toBe('');
    }
  });

  it('keeps the feed where the person scrolled it while updates arrive', async () => {
    const feed = page.getByRole('region', { name: 'Team activity' });
    await feed.evaluate((el) => {
      el.scrollTop = 0;
    });
    const count = (await cards().count()) + 1;
    await sendTo(['Review'], 'While scrolled up');
    await waitForCards(count);
    await waitForStatus(lastCard(), 'COMPLETED');
    expect(await feed.evaluate((el) => el.scrollTop)).toBe(0);
    expect(await feed.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
  });

  it('resumes after a dropped socket without losing events', async () => {
    const count = (await cards().count()) + 1;
    await sendTo(['Research'], 'Slow one\n!sleep 2500\n!reply after the drop');
    await waitForCards(count);
    await waitForStatus(lastCard(), 'RUNNING');
    for (const ws of sockets.splice(0)) await ws.close();
    await page.getByText('Updates interrupted · retrying automatically').waitFor();
    await composer().fill('draft survives');
    await page.getByText('● Live updates').waitFor({ timeout: 20_000 });
    await waitForStatus(lastCard(), 'COMPLETED');
    expect(await lastCard().locator('.result').textContent()).toContain('after the drop');
    expect(await cards().count()).toBe(count);
    expect(await composer().inputValue()).toBe('draft survives');
    await composer().fill('');
  });

  it('reconnects from the Manage menu and keeps receiving updates', async () => {
    await page.locator('summary', { hasText: 'Manage' }).click();
    await page.getByRole('button', { name: 'Reconnect' }).click();
    await page.getByText('● Live updates').waitFor();
    const count = (await cards().count()) + 1;
    await sendTo(['Review'], 'After reconnect');
    await waitForCards(count);
    await waitForStatus(lastCard(), 'COMPLETED');
  });

  it('keeps the delete action at WCAG AA contrast in light and dark themes', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('summary', { hasText: 'Manage' }).click();
    const ratio = () =>
      page.getByRole('button', { name: 'Delete finished team' }).evaluate((el) => {
        const parse = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
        const lum = (rgb: number[]) => {
          const [r, g, b] = rgb.map((v) => {
            const s = v / 255;
            return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
        };
        const style = getComputedStyle(el);
        const a = lum(parse(style.color));
        const b = lum(parse(style.backgroundColor));
        return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      });
    expect(await ratio()).toBeGreaterThanOrEqual(4.5);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await ratio()).toBeGreaterThanOrEqual(4.5);
    await page.locator('summary', { hasText: 'Manage' }).click();
  });

  it('reopens the team on a new page, then deletes it after confirmation', async () => {
    await page.close();
    page = await openPage();
    await page.getByRole('heading', { name: 'Release readiness' }).waitFor();
    await page.locator('summary', { hasText: 'Manage' }).click();
    await page.getByRole('button', { name: 'Delete finished team' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Build your team' }).waitFor();
    expect(await page.getByRole('button', { name: 'Release readiness' }).count()).toBe(0);
  });

  it('leaves nothing behind and sends nothing after the element is removed', async () => {
    await page.getByRole('checkbox', { name: 'Research' }).waitFor();
    let requests = 0;
    let frames = 0;
    page.on('request', () => requests++);
    page.on('websocket', (ws) => ws.on('framesent', () => frames++));
    const left = await page.evaluate(() => {
      const el = document.querySelector('agent-teams-widget');
      el?.remove();
      return el?.shadowRoot?.childNodes.length ?? -1;
    });
    expect(left).toBe(0);
    await page.waitForTimeout(2500);
    expect(requests).toBe(0);
    expect(frames).toBe(0);
    expect(pageErrors).toEqual([]);
    // Every document the widget sent passed the server's limits; the only error was the forced one.
    expect([...errorCodes]).toEqual(['CATALOG_UNAVAILABLE']);
  });

  it('works as a classic script and adds no global besides the element name', async () => {
    const classic = await context.newPage();
    classic.on('pageerror', (error) => pageErrors.push(error.message));
    // A page of the server's own origin (so Chromium treats it as loopback, like the demo page)
    // with nothing of the widget on it; the classic script is then added as an inline script.
    await classic.goto(`${originOf(server)}/health`);
    await classic.evaluate(() => {
      document.body.innerHTML = '<div id="host"></div>';
    });
    const before = await classic.evaluate(() => Object.getOwnPropertyNames(window));
    await classic.addScriptTag({ content: readFileSync(`${DIST}/widget.iife.js`, 'utf8') });
    const added = await classic.evaluate((names) => {
      const known = new Set(names);
      return Object.getOwnPropertyNames(window).filter((name) => !known.has(name));
    }, before);
    expect(added).toEqual([]);
    await classic.evaluate((token) => {
      const el = document.createElement('agent-teams-widget');
      el.setAttribute('endpoint', '/graphql');
      el.setAttribute('token', token);
      el.setAttribute('locale', 'zh');
      document.getElementById('host')?.append(el);
    }, TOKEN);
    await classic.getByRole('heading', { name: '组建团队' }).waitFor();
    expect(pageErrors).toEqual([]);
    await classic.close();
  });

  it('serves a demo page that never carries the token, asks for one and says (on loopback) where it was printed', async () => {
    for (const path of ['/', '/graphql']) {
      const html = await (await fetch(`${server.url}${path}`, { headers: { accept: 'text/html' } })).text();
      expect(html).not.toContain(TOKEN);
      expect(html).toContain('printed in the terminal');
    }
    const demo = await context.newPage();
    demo.on('pageerror', (error) => pageErrors.push(error.message));
    // The token from the URL fragment (never sent to the server), removed from the address bar at once.
    await demo.goto(`${originOf(server)}/#token=${TOKEN}`);
    expect(demo.url()).not.toContain(TOKEN);
    await demo.getByText('Your teams').first().waitFor();
    // Kept in memory only: after a reload the page asks for it.
    await demo.reload();
    expect(await demo.locator('agent-teams-widget').count()).toBe(0);
    await demo.getByLabel('Token').fill(TOKEN);
    await demo.getByRole('button', { name: 'Use' }).click();
    await demo.getByText('Your teams').first().waitFor();
    expect(pageErrors).toEqual([]);
    await demo.close();
  });
});
