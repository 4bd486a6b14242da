import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalProvider, startProvider } from './fake-provider.js';
import {
  ARTIFACTS,
  graphql,
  hostPage,
  launchBrowser,
  sendRequest,
  startServer,
  type TestServer,
  widgetTag,
} from './harness.js';

/** The lead's request: spawn a member, then leave it a quiet message (scripted directives). */
const LEAD_SCRIPT = [
  '!tool team_spawn {"name":"Scout","agent":"researcher","role":"Finds sources","request_id":"spawn-scout"}',
  '!tool team_message {"to":["Scout"],"text":"Start with the launch notes","delivery":"quiet","message_id":"lead-1"}',
].join('\n');
const FOLLOW_UP = 'Also check the pricing page';
const BUDGET_TASK = 'Estimate the launch cost';

type Member = { id: string; name: string };

/**
 * Teamwork in the widget against a real server: a scripted lead spawns a member and messages it,
 * the roster and feed follow live; a member paused in `wait_for_change` shows so; the person's
 * follow-up message is delivered into the member's next turn; a team budget set in the widget
 * stops an openai member's job before any model call; closing the team makes the widget read-only.
 */
describe('teamwork in Chromium: lead, spawn, messages, waits, budget and a closed team', () => {
  let server: TestServer;
  let provider: LocalProvider;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let teamId: string;
  let members: Member[];
  const pageErrors: string[] = [];
  const feed = (): Locator => page.getByRole('region', { name: 'Team activity' });
  const form = (): Locator => page.getByRole('form', { name: 'Message members' });
  const memberId = (name: string) => members.find((m) => m.name === name)?.id ?? '';

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    provider = await startProvider();
    server = await startServer({
      agents: [
        { name: 'lead', title: 'Lead', description: 'Coordinates', runtime: 'scripted' },
        { name: 'researcher', title: 'Research', description: 'Find evidence', runtime: 'scripted' },
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
      ],
      env: { E2E_PROVIDER_KEY: 'sk-e2e' },
    });
    const created = await graphql<{ createTeam: { team: { id: string; members: Member[] } } }>(
      server,
      'mutation Create($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id name } } } }',
      {
        input: {
          clientRequestId: 'e2e-teamwork',
          name: 'Launch crew',
          goal: 'Prepare the launch',
          members: [
            { name: 'Chief', agentId: 'lead', role: 'Coordinates the launch', lead: true },
            { name: 'Analyst', agentId: 'analyst', role: 'Prices the launch' },
          ],
        },
      },
    );
    teamId = created.createTeam.team.id;
    members = created.createTeam.team.members;
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await hostPage(context, server, widgetTag(`team="${teamId}"`), { errors: pageErrors });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await provider?.close();
  });

  it('shows roles and the lead, and a member paused in wait_for_change', async () => {
    await page.getByRole('heading', { name: 'Launch crew' }).waitFor();
    await page.getByRole('img', { name: 'Chief (lead): Idle' }).waitFor();
    await page.getByText('Coordinates the launch').waitFor();
    await page.getByText('Prices the launch').waitFor();
    await sendRequest(server, teamId, memberId('Chief'), '!wait 600000\n!reply woke up');
    await page.getByRole('img', { name: 'Chief (lead): Waiting for a change' }).waitFor({ timeout: 20_000 });
    await page.getByText('Status legend').click();
    await page.locator('details.legend').getByText('Waiting for a change').waitFor();
  });

  it('follows the lead live: the spawned member joins the roster and its message shows in the feed', async () => {
    await sendRequest(server, teamId, memberId('Chief'), LEAD_SCRIPT);
    await page.getByRole('img', { name: 'Scout: Idle' }).waitFor({ timeout: 20_000 });
    await page.locator('small.role', { hasText: 'Finds sources' }).waitFor();
    const item = feed().locator('article.msg', { hasText: 'Start with the launch notes' });
    await item.waitFor({ timeout: 20_000 });
    expect(await item.locator('.route').textContent()).toBe('Chief → @Scout');
    expect(await item.locator('.badge').textContent()).toBe('quiet');
    // The team changed, so the waiting turn went on and finished.
    await page.getByRole('img', { name: 'Chief (lead): Idle' }).waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'teamwork-live.png') });
  });

  it("delivers the person's follow-up message into the member's next turn", async () => {
    await form().getByText('Message members').click();
    await form().getByLabel('Scout').check();
    await form().getByLabel('Message', { exact: true }).fill(FOLLOW_UP);
    await form().getByLabel('Follow-up: starts a turn').check();
    await form().getByRole('button', { name: 'Send message' }).click();
    await form().getByText('Message sent.').waitFor();
    const item = feed().locator('article.msg', { hasText: FOLLOW_UP });
    await item.waitFor();
    expect(await item.locator('.route').textContent()).toBe('You → @Scout');
    // Delivered once, with the lead's quiet message, into one MESSAGE turn of Scout.
    const read = () =>
      graphql<{ team: { jobs: { edges: { node: { status: string; result: { text: string | null } } }[] } } }>(
        server,
        'query J($id: ID!) { team(id: $id) { jobs(kind: MESSAGE) { edges { node { status result { text } } } } } }',
        { id: teamId },
      );
    await expect
      .poll(async () => (await read()).team.jobs.edges.map((e) => [e.node.status, e.node.result.text]), {
        timeout: 20_000,
      })
      .toEqual([['COMPLETED', `messages: Start with the launch notes | ${FOLLOW_UP}`]]);
    const mailbox = await graphql<{ node: { mailbox: unknown[] } }>(
      server,
      'query M($id: ID!) { node(id: $id) { ... on Member { mailbox { id } } } }',
      { id: (await scoutId()) ?? '' },
    );
    expect(mailbox.node.mailbox).toEqual([]);
  });

  it('sets a team budget in the widget; a job that would pass it stops before any model call, and says so', async () => {
    const panel = page.getByRole('region', { name: 'Budget' });
    await panel.getByText('No budget set.').waitFor();
    await panel.getByText('Set budget').click();
    await panel.getByLabel('Token limit (empty: none)').fill('10');
    await panel.getByRole('button', { name: 'Save budget' }).click();
    await panel.getByText('0 / 10 tokens').waitFor();
    await page.getByLabel('Message to team').fill(BUDGET_TASK);
    await page.getByRole('button', { name: 'Mention Analyst' }).click();
    await page.getByLabel('Message to team').press('Control+Enter');
    const card = feed().locator('article.card', { hasText: BUDGET_TASK });
    await card.and(page.locator('[data-status="FAILED"]')).waitFor({ timeout: 20_000 });
    await card.getByText('Stopped: a spending budget is used up.').waitFor();
    await card.getByText("The team's tokens budget would be exceeded", { exact: false }).waitFor();
    expect(provider.fake.requests).toHaveLength(0);
  });

  it("shows a lead's broadcast live as one request card per other member, and no card for its receipt turn", async () => {
    const broadcast = '!reply status ok';
    await sendRequest(
      server,
      teamId,
      memberId('Chief'),
      `!tool team_broadcast {"text":"${broadcast}","request_id":"b-1"}`,
    );
    const cards = feed().locator('article.card:not(.msg)', { hasText: broadcast });
    // The lead's own card (You → @Chief) holds the text too; the broadcast's cards come from Chief.
    const routes = async () =>
      (await cards.locator('.route').allTextContents()).filter((route) => route.startsWith('Chief')).sort();
    await expect.poll(routes, { timeout: 20_000 }).toEqual(['Chief → @Analyst', 'Chief → @Scout']);
    await cards.filter({ hasText: 'Scout · Result' }).and(page.locator('[data-status="COMPLETED"]')).waitFor();
    // The analyst's share stops at the team budget like any job of it.
    await cards
      .filter({ hasText: 'Chief → @Analyst' })
      .getByText('Stopped: a spending budget is used up.')
      .waitFor({ timeout: 20_000 });
    // Chief's BROADCAST_RECEIPT turn runs once both finished; it is not a card of its own.
    const receipts = () =>
      graphql<{ team: { jobs: { edges: { node: { status: string } }[] } } }>(
        server,
        'query J($id: ID!) { team(id: $id) { jobs(kind: BROADCAST_RECEIPT) { edges { node { status } } } } }',
        { id: teamId },
      );
    await expect.poll(async () => (await receipts()).team.jobs.edges.map((e) => e.node.status)).toEqual(['COMPLETED']);
    expect(await routes()).toEqual(['Chief → @Analyst', 'Chief → @Scout']);
    expect(provider.fake.requests).toHaveLength(0);
  });

  it('turns read-only when the team is closed, keeping the record readable', async () => {
    await graphql(server, 'mutation C($input: CloseTeamInput!) { closeTeam(input: $input) { team { id } } }', {
      input: { teamId },
    });
    await page.getByRole('status').filter({ hasText: 'Team status: Closed' }).waitFor({ timeout: 20_000 });
    await page.getByText('This team is closed: its record stays readable, but it takes no new work.').waitFor();
    await page.getByLabel('Message to team').waitFor({ state: 'detached' });
    await form().getByText('The team is closed: no new messages.').waitFor();
    expect(await form().getByRole('button', { name: 'Send message' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save budget' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Mention Scout' }).isDisabled()).toBe(true);
    await feed().getByText(FOLLOW_UP).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'teamwork-closed.png') });
    expect(pageErrors).toEqual([]);
  });

  async function scoutId(): Promise<string | undefined> {
    const data = await graphql<{ team: { members: Member[] } }>(
      server,
      'query T($id: ID!) { team(id: $id) { members { id name } } }',
      { id: teamId },
    );
    return data.team.members.find((m) => m.name === 'Scout')?.id;
  }
});
