import type { Browser, BrowserContext, Locator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalProvider, startProvider } from './fake-provider.js';
import {
  createTeam,
  graphql,
  hostPage,
  launchBrowser,
  sendRequest,
  startServer,
  type TestServer,
  widgetTag,
} from './harness.js';

type RespondInput = { jobId: string; response: unknown; inputRequestId?: string };

/**
 * Questions answered from their cards against the real server: a receipt that asks (the lead, on
 * the `openai` runtime with a local fake provider, hands work to Review and asks the person about
 * the result when it comes back), and a question that changes while the person is writing an
 * answer (INPUT_CHANGED, with a scripted agent).
 */
describe('waiting questions in Chromium', () => {
  let provider: LocalProvider;
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let team: { id: string; members: { id: string; name: string }[] };
  const responds: { input: RespondInput; code: string | null }[] = [];
  const pageErrors: string[] = [];

  const memberId = (name: string) => team.members.find((m) => m.name === name)?.id ?? '';
  const card = (text: string): Locator => page.locator('article.card', { hasText: text });

  /** Records every `respond` the widget sends with the error code it got back (null: accepted). */
  const recordResponds = async (request: Request) => {
    const body = request.postDataJSON() as { query?: string; variables?: { input: RespondInput } } | null;
    if (!body?.query?.startsWith('mutation Respond') || !body.variables) return;
    const response = await request.response();
    const result = (await response?.json()) as { errors?: { extensions?: { code?: string } }[] };
    responds.push({ input: body.variables.input, code: result.errors?.[0]?.extensions?.code ?? null });
  };

  beforeAll(async () => {
    provider = await startProvider();
    provider.fake.respondWith((body) => {
      const last = body.messages.at(-1);
      const call = (id: string, name: string, args: object) => ({
        kind: 'answer' as const,
        toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
      });
      if (last?.role === 'tool') {
        return { kind: 'answer', content: last.tool_call_id === 'ask_1' ? 'Shipping eu-west first.' : 'Asked Review.' };
      }
      if (last?.content?.includes('"kind":"receipt"')) {
        return call('ask_1', 'ask_clarification', { question: 'Which region should ship first?' });
      }
      return call('send_1', 'send_member', { member: 'Review', text: 'Check the notes', request_id: 'handoff-1' });
    });
    const scripted = (name: string, title: string) => ({ name, title, description: title, runtime: 'scripted' });
    server = await startServer({
      agents: [
        { name: 'lead', title: 'Lead', description: 'Coordinates', runtime: 'openai', model: 'fake-model' },
        scripted('researcher', 'Research'),
        scripted('reviewer', 'Review'),
      ].map((agent) => (agent.runtime === 'openai' ? { ...agent, baseUrl: provider.baseUrl, apiKeyEnv: null } : agent)),
    });
    team = await createTeam(server, 'Question time', [
      { name: 'Lead', agentId: 'lead' },
      { name: 'Research', agentId: 'researcher' },
      { name: 'Review', agentId: 'reviewer' },
    ]);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await hostPage(context, server, widgetTag(`team="${team.id}"`), {
      errors: pageErrors,
      beforeLoad: async (p) => void p.on('requestfinished', recordResponds),
    });
    await page.getByText('● Live updates').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await provider?.close();
  });

  it('answers a receipt that asks, from the handoff card, and counts it as waiting', async () => {
    await sendRequest(server, team.id, memberId('Lead'), 'Coordinate the release review');
    const handoff = card('Lead → @Review');
    await handoff.locator('[data-receipt-status="WAITING_INPUT"]').waitFor({ timeout: 20_000 });
    await handoff.getByText('Reply to Lead: Needs input').waitFor();
    await page.getByText('1 waiting for you').waitFor();
    const ask = handoff.getByRole('group', { name: 'Lead asks' });
    await ask.getByText('Which region should ship first?').waitFor();
    await ask.getByLabel('Your answer').fill('eu-west');
    await ask.getByLabel('Your answer').press('Control+Enter');
    await handoff.getByText('Returned to Lead').waitFor({ timeout: 20_000 });
    await page.getByText('0 waiting for you').waitFor();
    // The page may show the answer before this side has read the response it recorded.
    await expect.poll(() => responds.at(-1)?.input.response).toBe('eu-west');
    const receipt = responds.at(-1);
    expect(receipt?.code).toBeNull();
    expect(receipt?.input.response).toBe('eu-west');
    expect(receipt?.input.inputRequestId).toMatch(/\S/);
    // The receipt is the job answered, with the question it asked.
    const asked = await graphql<{ job: { kind: string; parent: { id: string } } }>(
      server,
      'query J($id: ID!) { job(id: $id) { kind parent { id } } }',
      { id: receipt?.input.jobId },
    );
    expect(asked.job.kind).toBe('RECEIPT');
    expect(asked.job.parent.id).toBe(await handoff.getAttribute('data-job-id'));
  });

  it('catches a question that changed while the answer was written, explains, and keeps the draft', async () => {
    const jobId = await sendRequest(server, team.id, memberId('Research'), 'Pick one\n!ask First question?');
    const asking = card('Pick one');
    const ask = asking.getByRole('group', { name: 'Research asks' });
    await ask.getByText('First question?').waitFor({ timeout: 20_000 });
    const first = await graphql<{ job: { input: { requestId: string } } }>(
      server,
      'query J($id: ID!) { job(id: $id) { input { requestId } } }',
      { id: jobId },
    );
    await ask.getByLabel('Your answer').fill('my careful answer');
    // Meanwhile another client answers, and the agent asks again.
    await graphql(server, 'mutation R($input: RespondInput!) { respond(input: $input) { job { id } } }', {
      input: { jobId, response: '!ask Second question?', clientRequestId: 'other-client' },
    });
    await ask.getByText('Second question?').waitFor({ timeout: 20_000 });
    expect(await ask.getByLabel('Your answer').inputValue()).toBe('my careful answer');
    await ask.getByRole('button', { name: 'Submit response' }).click();
    await ask.getByRole('alert').getByText('The question changed after you started your answer.').waitFor();
    await expect
      .poll(() => responds.at(-1))
      .toEqual({
        input: expect.objectContaining({ jobId, inputRequestId: first.job.input.requestId }),
        code: 'INPUT_CHANGED',
      });
    expect(await ask.getByLabel('Your answer').inputValue()).toBe('my careful answer');
    expect(await asking.getAttribute('data-status')).toBe('WAITING_INPUT');

    // Submitting again answers the question now shown.
    await ask.getByRole('button', { name: 'Submit response' }).click();
    await asking.and(page.locator('[data-status="COMPLETED"]')).waitFor({ timeout: 20_000 });
    expect(await asking.locator('.result').textContent()).toContain('answered: my careful answer');
    await expect.poll(() => responds.at(-1)?.input.inputRequestId).not.toBe(first.job.input.requestId);
    const second = responds.at(-1);
    expect(second?.code).toBeNull();
    expect(second?.input.inputRequestId).not.toBe(first.job.input.requestId);
    expect(pageErrors).toEqual([]);
  });
});
