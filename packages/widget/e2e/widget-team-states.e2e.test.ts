import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalProvider, startProvider } from './fake-provider.js';
import {
  ARTIFACTS,
  createTeam,
  graphql,
  hostPage,
  launchBrowser,
  startServer,
  type TestServer,
  widgetTag,
} from './harness.js';

const TASK = 'Summarise the launch risks';
const ANSWER = 'Risks: none found.';

/**
 * A member on the `openai` runtime whose provider (a local fake) first refuses the key with 401,
 * so the server disconnects the team; after Reconnect it answers normally: one tool call
 * (read_team_history), then a text answer, each with token usage the server prices.
 */
describe('team states, tool calls, conversations and usage in Chromium', () => {
  let server: TestServer;
  let provider: LocalProvider;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let teamId: string;
  let release = () => {};
  const pageErrors: string[] = [];

  const card = (): Locator => page.locator('article.card', { hasText: TASK });

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    provider = await startProvider();
    provider.fake.enqueue({ kind: 'error', status: 401, message: 'Incorrect API key provided.' });
    provider.fake.respondWith((body) =>
      body.messages.at(-1)?.role === 'tool'
        ? {
            kind: 'answer',
            deltas: ['Risks: ', 'none found.'],
            // The second call re-reads the first's prompt: the provider served 96 tokens from its cache.
            usage: { prompt_tokens: 200, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 96 } },
          }
        : {
            kind: 'answer',
            toolCalls: [{ id: 'call_1', name: 'read_team_history', arguments: '{"limit":2}' }],
            usage: { prompt_tokens: 120, completion_tokens: 30 },
          },
    );
    server = await startServer({
      agents: [
        {
          name: 'analyst',
          title: 'Analyst',
          description: 'Weighs the evidence',
          runtime: 'openai',
          model: 'fake-model',
          baseUrl: provider.baseUrl,
          apiKeyEnv: 'E2E_PROVIDER_KEY',
          pricing: { inputPerMillion: 2, outputPerMillion: 8 },
        },
        { name: 'reviewer', title: 'Review', description: 'Independent quality review', runtime: 'scripted' },
      ],
      env: { E2E_PROVIDER_KEY: 'sk-e2e' },
    });
    const team = await createTeam(server, 'Launch review', [
      { name: 'Analyst', agentId: 'analyst' },
      { name: 'Review', agentId: 'reviewer' },
    ]);
    teamId = team.id;
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await hostPage(context, server, widgetTag(`team="${teamId}"`), { errors: pageErrors });
  });

  afterAll(async () => {
    release();
    await browser?.close();
    await server?.close();
    await provider?.close();
  });

  it('shows the ready team, then the disconnected state with Reconnect when the provider refuses the key', async () => {
    await page.getByRole('heading', { name: 'Launch review' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Team status: Ready' }).waitFor();
    await page.getByLabel('Message to team').fill(TASK);
    await page.getByRole('button', { name: 'Mention Analyst' }).click();
    await page.getByLabel('Message to team').press('Control+Enter');
    await card().waitFor();
    await page.getByRole('status').filter({ hasText: 'Team status: Disconnected' }).waitFor({ timeout: 20_000 });
    await page.getByText('An agent lost access to its model provider.').waitFor();
    expect(provider.fake.requests[0]?.authorization).toBe('Bearer sk-e2e');
    // Active work keeps its state while the team waits for Reconnect.
    expect(await card().getAttribute('data-status')).toBe('RUNNING');
    await page.screenshot({ path: join(ARTIFACTS, 'team-disconnected.png') });
  });

  it('reconnects from the banner by keyboard and the run continues, previewing its tool call', async () => {
    // The tool-call round is answered; the final answer waits until the test has looked.
    release = provider.hold(2);
    const reconnect = page.locator('.banner').getByRole('button', { name: 'Reconnect' });
    await reconnect.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Team status: Ready' }).waitFor({ timeout: 20_000 });
    expect(await page.locator('.banner').count()).toBe(0);
    await card().getByText('Calling read_team_history…').waitFor({ timeout: 20_000 });
    expect(await card().getAttribute('data-status')).toBe('RUNNING');
    await page.getByRole('img', { name: 'Analyst: Running' }).waitFor();
  });

  it('opens the conversation by keyboard and follows the turn live: input, tool call, result, answer', async () => {
    const open = page.getByRole('button', { name: 'Open Analyst conversation' });
    await open.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Analyst · Conversation' });
    await dialog.waitFor();
    // Focus moved into the dialog.
    expect(await dialog.getByRole('button', { name: 'Close' }).evaluate((el) => el.matches(':focus'))).toBe(true);
    const messages = dialog.getByRole('list', { name: 'Messages' });
    await messages.getByText(TASK, { exact: true }).waitFor();
    await messages.getByText('Tool call · read_team_history').waitFor();
    await messages.getByText('Tool result · read_team_history').waitFor({ timeout: 20_000 });
    await dialog.getByRole('region', { name: 'Working now' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'conversation-running.png') });

    release();
    await messages.getByText(ANSWER).waitFor({ timeout: 20_000 });
    await card().and(page.locator('[data-status="COMPLETED"]')).waitFor({ timeout: 20_000 });
    expect(await dialog.getByRole('region', { name: 'Working now' }).count()).toBe(0);
    const labels = await messages.locator('.who').allTextContents();
    expect(labels).toEqual(['Input', 'Tool call · read_team_history', 'Tool result · read_team_history', 'Answer']);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await open.evaluate((el) => el.matches(':focus'))).toBe(true);
  });

  it('shows usage and cost per job, per member and for the team', async () => {
    const usage = await graphql<{
      team: { usage: { inputTokens: number; cachedInputTokens: number; outputTokens: number; cost: number } };
    }>(server, 'query U($id: ID!) { team(id: $id) { usage { inputTokens cachedInputTokens outputTokens cost } } }', {
      id: teamId,
    });
    // Two priced calls: 320 tokens in at 2 per million (no cached price: cached input costs the
    // same), 80 out at 8 per million.
    expect(usage.team.usage).toEqual({
      inputTokens: 320,
      cachedInputTokens: 96,
      outputTokens: 80,
      cost: (320 * 2 + 80 * 8) / 1e6,
    });
    await card().getByText('400 tokens · cost 0.0013').waitFor();
    const summary = page.locator('details.usage > summary');
    await summary.getByText('Usage and cost: 400 tokens · cost 0.0013').waitFor();
    await summary.click();
    await page
      .locator('details.usage')
      .getByText('400 tokens · cost 0.0013 · 320 in (96 cached) · 80 out · 2 model calls')
      .waitFor();
    await page.getByRole('button', { name: 'Open Analyst conversation' }).click();
    const dialog = page.getByRole('dialog', { name: 'Analyst · Conversation' });
    await dialog.getByText('400 tokens · cost 0.0013').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('reads the same in Chinese, by keyboard', async () => {
    await page.locator('agent-teams-widget').evaluate((el) => el.setAttribute('locale', 'zh'));
    await page.getByRole('status').filter({ hasText: '团队状态： 就绪' }).waitFor();
    await page.getByText('状态图例').click();
    await page.getByText('等你回复').waitFor();
    const open = page.getByRole('button', { name: '打开 Analyst 的对话' });
    await open.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Analyst · 对话' });
    await dialog.getByText('工具调用 · read_team_history').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await open.evaluate((el) => el.matches(':focus'))).toBe(true);
    await page.locator('agent-teams-widget').evaluate((el) => el.setAttribute('locale', 'en'));
    expect(pageErrors).toEqual([]);
  });
});
