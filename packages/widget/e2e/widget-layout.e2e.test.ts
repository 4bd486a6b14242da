import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARTIFACTS,
  createTeam,
  hostPage,
  launchBrowser,
  sendRequest,
  startServer,
  type TestServer,
  widgetTag,
} from './harness.js';

/** What {@link measure} reads from a page: the widget's width, its column count, overflow. */
interface Layout {
  width: number;
  /** Grid tracks of the workspace (1: stacked). */
  columns: number;
  /** How far the widest element inside the widget reaches past its right edge (≤ 0: none). */
  overflow: number;
  /** Same for the page itself. */
  pageOverflow: number;
}

/** Measures the widget on `page` (inside its shadow root) and the page around it. */
function measure(page: Page): Promise<Layout> {
  return page.evaluate(() => {
    const shadow = document.querySelector('agent-teams-widget')?.shadowRoot;
    const root = shadow?.querySelector('.root') as HTMLElement;
    const box = root.getBoundingClientRect();
    let right = box.right;
    for (const el of shadow?.querySelectorAll('.root *') ?? []) {
      const rect = el.getBoundingClientRect();
      if (rect.width > 0 && el.closest('dialog') === null) right = Math.max(right, rect.right);
    }
    const ws = shadow?.querySelector('.ws') as HTMLElement;
    return {
      width: Math.round(box.width),
      columns: getComputedStyle(ws).gridTemplateColumns.split(' ').length,
      overflow: right - box.right,
      pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
    };
  });
}

/** A host page of the kind that embeds the widget in a sidebar `width` px wide (0: the whole page). */
function embedding(width: number, theme: 'light' | 'dark', team: string): string {
  const tag = widgetTag(`team="${team}" theme="${theme}"`);
  const background = theme === 'dark' ? '#0b0d10' : '#f4f5f7';
  const style = `<style>body{margin:0;background:${background};font-family:sans-serif}.host{display:flex;gap:16px;padding:16px}.host main{flex:1}</style>`;
  if (width === 0) return `${style}${tag}`;
  return `${style}<div class="host"><main><h1>Host application</h1><p>Content of the host page.</p></main><aside style="width:${width}px;flex:none">${tag}</aside></div>`;
}

/**
 * The layout follows the element's own width (container queries), at 360 px embedded in a 1400 px
 * page and on 390 px and 320 px phones, in both themes; polling pauses while the page is hidden.
 */
describe('layout and visibility in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let teamId: string;
  const pageErrors: string[] = [];

  async function open(viewport: { width: number; height: number }, html: string): Promise<Page> {
    const context = await browser.newContext({ viewport });
    const page = await hostPage(context, server, html, { errors: pageErrors });
    await page.locator('article.card[data-status="WAITING_INPUT"]').waitFor({ timeout: 20_000 });
    return page;
  }

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer();
    const team = await createTeam(server, 'A team with a rather long name to wrap', [
      { name: 'Research', agentId: 'researcher' },
      { name: 'Review', agentId: 'reviewer' },
    ]);
    teamId = team.id;
    const [research, review] = team.members.map((m) => m.id);
    await sendRequest(server, teamId, research ?? '', `A long unbroken token: ${'x'.repeat(120)}`);
    await sendRequest(server, teamId, review ?? '', 'Check the notes\n!handoff Research Look again');
    await sendRequest(server, teamId, research ?? '', 'Which one?\n!ask Which environment should I check?');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it.each(['light', 'dark'] as const)(
    'stacks in a 360 px sidebar of a 1400 px page, without overflow (%s)',
    async (theme) => {
      const page = await open({ width: 1400, height: 1000 }, embedding(360, theme, teamId));
      const layout = await measure(page);
      expect(layout).toMatchObject({ width: 360, columns: 1 });
      expect(layout.overflow).toBeLessThanOrEqual(0.5);
      expect(layout.pageOverflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(ARTIFACTS, `embed-360-${theme}.png`), fullPage: true });
      await page.context().close();
    },
  );

  it('uses two columns when the same page gives it 1000 px', async () => {
    const page = await open({ width: 1400, height: 1000 }, embedding(1000, 'light', teamId));
    expect(await measure(page)).toMatchObject({ width: 1000, columns: 2 });
    await page.context().close();
  });

  it.each([
    [390, 'light'],
    [390, 'dark'],
    [320, 'light'],
  ] as const)('fits a %i px phone without horizontal overflow (%s), conversation included', async (width, theme) => {
    const page = await open({ width, height: 844 }, embedding(0, theme, teamId));
    const layout = await measure(page);
    expect(layout).toMatchObject({ width, columns: 1 });
    expect(layout.overflow).toBeLessThanOrEqual(0.5);
    expect(layout.pageOverflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(ARTIFACTS, `mobile-${width}-${theme}.png`), fullPage: true });
    await page.getByRole('button', { name: 'Open Research conversation' }).click();
    const dialog = page.getByRole('dialog', { name: 'Research · Conversation' });
    await dialog.getByText('Which environment should I check?').first().waitFor();
    const fits = await dialog.evaluate(
      (el) => el.getBoundingClientRect().right <= window.innerWidth && el.scrollWidth <= el.clientWidth,
    );
    expect(fits).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, `mobile-${width}-${theme}-conversation.png`) });
    await page.context().close();
  });

  it('pauses polling while the page is hidden and reconnects at once when it shows again', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const sockets: WebSocketRoute[] = [];
    let reads = 0;
    let opened = 0;
    const page = await hostPage(context, server, widgetTag(`team="${teamId}"`), {
      errors: pageErrors,
      beforeLoad: async (p) => {
        await p.clock.install();
        p.on('request', (request) => {
          if ((request.postData() ?? '').includes('query Activity')) reads++;
        });
        await p.routeWebSocket(/\/graphql$/, (ws) => {
          opened++;
          ws.connectToServer();
          sockets.push(ws);
        });
      },
    });
    await page.getByText('● Live updates').waitFor();
    const setHidden = (hidden: boolean) =>
      page.evaluate((value) => {
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => value });
        Object.defineProperty(document, 'visibilityState', {
          configurable: true,
          get: () => (value ? 'hidden' : 'visible'),
        });
        document.dispatchEvent(new Event('visibilitychange'));
      }, hidden);

    await setHidden(true);
    for (const ws of sockets.splice(0)) await ws.close();
    await page.getByText('Updates interrupted · retrying automatically').waitFor();
    const [readsBefore, openedBefore] = [reads, opened];
    // Ten poll periods of the page's clock pass: a hidden page reads nothing and opens no socket.
    await page.clock.runFor(20_000);
    expect([reads, opened]).toEqual([readsBefore, openedBefore]);

    await setHidden(false);
    await expect.poll(() => reads).toBeGreaterThan(readsBefore);
    await page.getByText('● Live updates').waitFor();
    expect(opened).toBe(openedBefore + 1);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
