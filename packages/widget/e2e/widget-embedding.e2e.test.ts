import type { Browser, BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTeam,
  graphql,
  launchBrowser,
  hostPage as openHostPage,
  startServer,
  type TestServer,
  TOKEN,
} from './harness.js';

/** The storage key under which the widget remembers the last team for `endpoint="/graphql"`. */
const LAST_TEAM_KEY = 'agent-teams-widget:last-team:/graphql';

/**
 * How a host page embeds the element: the `team` attribute, and the `getToken` property with a
 * token the host rotates. Each case builds its own host page on the server's origin.
 */
describe('embedding the element in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  const pageErrors: string[] = [];
  const teams: Record<'older' | 'newer', string> = { older: '', newer: '' };

  const members = [
    { name: 'Research', agentId: 'researcher' },
    { name: 'Review', agentId: 'reviewer' },
  ];

  /** A host page on the server's origin holding `html` (see the harness's `hostPage`). */
  const hostPage = (html: string, beforeLoad?: (page: Page) => Promise<void>) =>
    openHostPage(context, server, html, { errors: pageErrors, ...(beforeLoad ? { beforeLoad } : {}) });

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    teams.older = (await createTeam(server, 'Older team', members)).id;
    teams.newer = (await createTeam(server, 'Newer team', members)).id;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('opens the team named by the team attribute, not the newest or the last opened one', async () => {
    const page = await hostPage(
      `<agent-teams-widget endpoint="/graphql" token="${TOKEN}" team="${teams.older}"></agent-teams-widget>`,
      async (p) => {
        await p.evaluate(([key, id]) => localStorage.setItem(key, id), [LAST_TEAM_KEY, teams.newer] as const);
      },
    );
    await page.getByRole('heading', { name: 'Older team' }).waitFor();
    expect(await page.getByRole('button', { name: 'Older team' }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByRole('button', { name: 'Newer team' }).getAttribute('aria-current')).toBeNull();
    // Opening it made it the last team, so the next page without the attribute reopens it.
    expect(await page.evaluate((key) => localStorage.getItem(key), LAST_TEAM_KEY)).toBe(teams.older);
    await page.close();
  });

  it('falls back to the last opened team when the team attribute names no team of the viewer', async () => {
    const page = await hostPage(
      `<agent-teams-widget endpoint="/graphql" token="${TOKEN}" team="no-such-team"></agent-teams-widget>`,
    );
    await page.getByRole('heading', { name: 'Older team' }).waitFor();
    expect(await page.getByRole('button', { name: 'Older team' }).getAttribute('aria-current')).toBe('page');
    await page.close();
  });

  it('asks the getToken property for every request and socket, so a rotated token is used; the feed starts at the head', async () => {
    // A gateway in front of the server that accepts only the host's current token, as if the
    // host minted short-lived tokens, and passes the request on with the server's own token.
    let current = 'minted-1';
    const httpTokens: string[] = [];
    const socketTokens: string[] = [];
    const feedStarts: number[] = [];
    const sockets: WebSocketRoute[] = [];
    const page = await hostPage(
      `<agent-teams-widget endpoint="/graphql" team="${teams.older}"></agent-teams-widget>`,
      async (p) => {
        await p.route('**/graphql', async (route) => {
          const auth = route.request().headers().authorization ?? '';
          httpTokens.push(auth);
          if (auth !== `Bearer ${current}`) {
            await route.fulfill({
              contentType: 'application/json',
              body: JSON.stringify({
                data: null,
                errors: [{ message: 'expired', extensions: { code: 'UNAUTHENTICATED' } }],
              }),
            });
            return;
          }
          await route.continue({ headers: { ...route.request().headers(), authorization: `Bearer ${TOKEN}` } });
        });
        await p.routeWebSocket(/\/graphql$/, (ws) => {
          const upstream = ws.connectToServer();
          sockets.push(ws);
          ws.onMessage((message) => {
            const frame = JSON.parse(String(message)) as {
              type: string;
              payload?: { authorization?: string; query?: string; variables?: { afterSeq?: number } };
            };
            if (frame.type === 'subscribe' && frame.payload?.query?.includes('teamEvents')) {
              feedStarts.push(frame.payload.variables?.afterSeq ?? -1);
            }
            if (frame.type === 'connection_init') {
              const auth = frame.payload?.authorization ?? '';
              socketTokens.push(auth);
              if (auth !== `Bearer ${current}`) return void ws.close({ code: 4403 });
              frame.payload = { authorization: `Bearer ${TOKEN}` };
            }
            upstream.send(JSON.stringify(frame));
          });
        });
        // The host sets the property before the widget's module has defined the element.
        await p.evaluate(() => {
          const host = window as unknown as { mintedToken: string; mintCalls: number };
          host.mintedToken = 'minted-1';
          host.mintCalls = 0;
          const el = document.querySelector('agent-teams-widget') as HTMLElement & {
            getToken?: () => Promise<string>;
          };
          el.getToken = async () => {
            host.mintCalls++;
            await new Promise((resolve) => setTimeout(resolve, 5));
            return host.mintedToken;
          };
        });
      },
    );
    const rotate = async (token: string) => {
      current = token;
      await page.evaluate((t) => {
        (window as unknown as { mintedToken: string }).mintedToken = t;
      }, token);
    };

    await page.getByRole('heading', { name: 'Older team' }).waitFor();
    await page.getByText('● Live updates').waitFor();
    // The feed starts at the team's current seq instead of replaying its log from 0.
    const head = await graphql<{ team: { lastEventSeq: number } }>(
      server,
      'query Head($id: ID!) { team(id: $id) { lastEventSeq } }',
      { id: teams.older },
    );
    expect(head.team.lastEventSeq).toBeGreaterThan(0);
    expect(feedStarts).toEqual([head.team.lastEventSeq]);
    expect(httpTokens.length).toBeGreaterThanOrEqual(3); // teams, team, activity
    expect(new Set(httpTokens)).toEqual(new Set(['Bearer minted-1']));
    expect(socketTokens).toEqual(['Bearer minted-1']);
    // Asked once per request and per socket, never cached (a request may still be on its way).
    const calls = await page.evaluate(() => (window as unknown as { mintCalls: number }).mintCalls);
    expect(calls).toBeGreaterThanOrEqual(httpTokens.length + socketTokens.length);

    // The next HTTP call carries the rotated token.
    await rotate('minted-2');
    const seen = httpTokens.length;
    await page.locator('summary', { hasText: 'Manage' }).click();
    await page.getByRole('button', { name: 'Refresh now' }).click();
    await expect.poll(() => httpTokens.length).toBeGreaterThan(seen);
    expect(new Set(httpTokens.slice(seen))).toEqual(new Set(['Bearer minted-2']));

    // So does the next socket after the connection drops.
    for (const ws of sockets.splice(0)) await ws.close();
    await page.getByText('Updates interrupted · retrying automatically').waitFor();
    await page.getByText('● Live updates').waitFor({ timeout: 20_000 });
    expect(socketTokens).toEqual(['Bearer minted-1', 'Bearer minted-2']);

    // Live updates arrive on the new socket: a request sent elsewhere shows up and completes.
    const members = await graphql<{ team: { members: { id: string }[] } }>(
      server,
      'query Members($id: ID!) { team(id: $id) { members { id } } }',
      { id: teams.older },
    );
    await graphql(server, 'mutation Send($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }', {
      input: {
        teamId: teams.older,
        memberIds: [members.team.members[0]?.id],
        text: 'After the rotation',
        clientRequestId: 'embed-rotation',
      },
    });
    await page.locator('article.card[data-status="COMPLETED"]', { hasText: 'After the rotation' }).waitFor({
      timeout: 20_000,
    });
    expect(await page.getByText(/UNAUTHENTICATED/).count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
