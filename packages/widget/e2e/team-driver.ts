// Shared by widget-create-and-send and widget-feed-and-teardown (.e2e.test.ts): both drive one team through its page.
import type { Locator, Page, WebSocketRoute } from 'playwright-core';
import { expect } from 'vitest';

/** What {@link teamDriver} records of the pages it instruments, and the helpers that drive the current one. */
export interface TeamDriver {
  /** Errors thrown in the instrumented pages (filled through `hostPage`'s `errors`). */
  readonly pageErrors: string[];
  /** The live-update sockets of the instrumented pages, connected to the server. */
  readonly sockets: WebSocketRoute[];
  /** The error codes of every GraphQL answer the instrumented pages received. */
  readonly errorCodes: Set<string>;
  /** What every page of the suite does: record operations and error codes, fail the first catalog read, keep sockets. */
  instrument(target: Page): Promise<void>;
  /** The composer's text box. */
  composer(): Locator;
  /** Every task card in the feed. */
  cards(): Locator;
  /** The newest task card. */
  lastCard(): Locator;
  /** How many times the instrumented pages sent the GraphQL operation `name`. */
  mutations(name: string): number;
  /** Sends `text` to the members whose chips are chosen by typing `@<name>` + Enter. */
  sendTo(names: string[], text: string): Promise<void>;
  /** Waits until the feed shows at least `count` cards. */
  waitForCards(count: number): Promise<void>;
  /** Waits until `card` shows `status`. */
  waitForStatus(card: Locator, status: string): Promise<void>;
  /** Fills a field with an over-limit value, expects the limit message, no request and the draft kept. */
  rejects(field: Locator, value: string, submit: Locator, operation: string, message: string): Promise<void>;
}

/**
 * The helpers of a suite that drives one team in the widget, on the page `current` returns (the
 * suite's `page`, which it may replace); the first catalog read of its instrumented pages fails.
 */
export function teamDriver(current: () => Page): TeamDriver {
  const pageErrors: string[] = [];
  const operations: string[] = [];
  const sockets: WebSocketRoute[] = [];
  const errorCodes = new Set<string>();
  let failCatalog = 1;

  const composer = () => current().getByLabel('Message to team');
  const cards = () => current().locator('article.card');
  const lastCard = () => cards().last();
  const mutations = (name: string) => operations.filter((op) => op === name).length;

  async function sendTo(names: string[], text: string): Promise<void> {
    const page = current();
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
    await current().waitForFunction(
      (n) =>
        (document.querySelector('agent-teams-widget')?.shadowRoot?.querySelectorAll('article.card').length ?? 0) >= n,
      count,
      { timeout: 20_000 },
    );
  }

  async function waitForStatus(card: Locator, status: string): Promise<void> {
    await card.and(current().locator(`[data-status="${status}"]`)).waitFor({ timeout: 20_000 });
  }

  async function rejects(field: Locator, value: string, submit: Locator, operation: string, message: string) {
    const before = mutations(operation);
    await field.fill(value);
    await submit.click();
    await current().getByText(message).first().waitFor();
    expect(mutations(operation)).toBe(before);
    expect(await field.inputValue()).toBe(value);
  }

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

  return {
    pageErrors,
    sockets,
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
  };
}
