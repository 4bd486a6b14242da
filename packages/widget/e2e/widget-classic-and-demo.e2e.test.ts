import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIST, launchBrowser, originOf, startServer, type TestServer, TOKEN } from './harness.js';

/**
 * The widget in real Chromium against the real api server with scripted agents, delivered the two
 * other ways: as the classic script on a host page, and on the server's own demo page (no team yet).
 */
describe('the widget in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
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
