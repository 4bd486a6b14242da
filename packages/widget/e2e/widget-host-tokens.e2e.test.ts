import { SignJWT } from 'jose';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, hostPage, launchBrowser, sendRequest, startServer, type TestServer } from './harness.js';

/** The host's side of the embedding: its HS256 secret, who it signs for, and how long tokens live. */
const SECRET = 'e2e-host-secret-at-least-32-bytes';
const ISSUER = 'https://host.example';
const AUDIENCE = 'agent-teams';
const USER = 'host-user-42';
const LIFETIME_S = 3;
/** A bound on the loop below: three lifetimes of requests (each runs 300 ms), under the team's 100. */
const MAX_REQUESTS = 90;

/** Signs a token for `sub` as a host backend would, valid for `LIFETIME_S` seconds from now. */
function mint(sub: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + LIFETIME_S)
    .sign(new TextEncoder().encode(SECRET));
}

/** One socket the page opened, as the page saw it. */
interface SocketRecord {
  readonly inits: string[];
  readonly seqs: number[];
  close: number | null;
}

/**
 * The widget embedded for one end user of a host that signs tokens living three seconds: while
 * requests keep flowing, the server closes each socket with 4403 when its token expires, the
 * widget asks `getToken` again, and the feed resumes by seq.
 */
describe('host-signed short-lived tokens in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    server = await startServer({
      auth: {
        jwt: {
          issuer: ISSUER,
          audience: AUDIENCE,
          secretEnv: 'E2E_HOST_SECRET',
          maxLifetimeSeconds: 60,
          clockToleranceSeconds: 0,
        },
      },
      env: { E2E_HOST_SECRET: SECRET },
    });
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows every event once while tokens expire every few seconds', async () => {
    const team = await createTeam(
      server,
      'Host user team',
      [
        { name: 'Research', agentId: 'researcher' },
        { name: 'Review', agentId: 'reviewer' },
      ],
      await mint(USER),
    );
    const errors: string[] = [];
    const page = await hostPage(
      context,
      server,
      `<agent-teams-widget endpoint="/graphql" team="${team.id}"></agent-teams-widget>`,
      {
        errors,
        beforeLoad: async (p) => {
          await p.exposeFunction('mintHostToken', () => mint(USER));
          await p.evaluate(() => {
            // Records what each socket sent and received, without changing what the widget does.
            const w = window as unknown as { sockets: SocketRecord[]; mintHostToken: () => Promise<string> };
            w.sockets = [];
            const Native = window.WebSocket;
            window.WebSocket = class extends Native {
              constructor(url: string | URL, protocols?: string | string[]) {
                super(url, protocols);
                const record: SocketRecord = { inits: [], seqs: [], close: null };
                w.sockets.push(record);
                this.addEventListener('message', (event) => {
                  const frame = JSON.parse(String(event.data)) as {
                    type: string;
                    payload?: { data?: { teamEvents?: { seq: number } } };
                  };
                  const seq = frame.payload?.data?.teamEvents?.seq;
                  if (frame.type === 'next' && seq !== undefined) record.seqs.push(seq);
                });
                this.addEventListener('close', (event) => {
                  record.close = event.code;
                });
                const send = this.send.bind(this);
                this.send = (data) => {
                  const frame = JSON.parse(String(data)) as { type: string; payload?: { authorization?: string } };
                  if (frame.type === 'connection_init') record.inits.push(frame.payload?.authorization ?? '');
                  send(data);
                };
              }
            };
            const el = document.querySelector('agent-teams-widget') as HTMLElement & {
              getToken?: () => Promise<string>;
            };
            el.getToken = () => w.mintHostToken();
          });
        },
      },
    );
    await page.getByRole('heading', { name: 'Host user team' }).waitFor();
    await page.getByText('● Live updates').waitFor();
    const sockets = () => page.evaluate(() => (window as unknown as { sockets: SocketRecord[] }).sockets);

    // Requests keep coming from another client of the same user until three tokens expired on
    // live sockets (each request waits for its card, so they spread over the tokens' lifetimes).
    const member = team.members[0]?.id ?? '';
    const expiries = async () => (await sockets()).filter((socket) => socket.close === 4403).length;
    let sent = 0;
    while ((await expiries()) < 3) {
      sent += 1;
      expect(sent, JSON.stringify(await sockets())).toBeLessThanOrEqual(MAX_REQUESTS);
      // The scripted agent works 300 ms on each, so the events spread over the tokens' lifetimes.
      await sendRequest(server, team.id, member, `Event ${sent}.\n!sleep 300`, await mint(USER));
      await page
        .locator('article.card[data-status="COMPLETED"]', { hasText: `Event ${sent}.` })
        .waitFor({ timeout: 20_000 });
    }
    for (let i = 1; i <= sent; i += 1) {
      expect(await page.locator('article.card', { hasText: `Event ${i}.` }).count()).toBe(1);
    }

    const seen = await sockets();
    // Every socket but the open one ended at its token's expiry (nothing else closed one), and
    // each new one carried a fresh token.
    expect(seen.slice(0, -1).map((socket) => socket.close)).toEqual(seen.slice(0, -1).map(() => 4403));
    expect(seen.at(-1)?.close).toBeNull();
    const inits = seen.flatMap((socket) => socket.inits);
    expect(new Set(inits).size).toBe(inits.length);
    // Across all sockets, the team's events arrived once each, in order, with no gap.
    const seqs = seen.flatMap((socket) => socket.seqs);
    expect(seqs.length).toBeGreaterThan(sent);
    expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i));
    expect(await page.getByText(/UNAUTHENTICATED/).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
