import { asJobId } from '@agent-teams/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createTeam, sendRequest } from '../graphql/fixtures.js';
import { createGraphqlStack, type GraphqlStack } from '../graphql/graphql-stack.js';

let stack: GraphqlStack | null = null;
afterEach(async () => {
  await stack?.close();
  stack = null;
});

/** The `/metrics` text, through the same Yoga the HTTP server runs. */
async function scrape(s: GraphqlStack): Promise<string> {
  const response = await s.server.yoga.fetch('http://localhost/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return response.text();
}

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('/metrics', () => {
  it('counts the admission and times the turn of a request that ran', async () => {
    stack = await createGraphqlStack();
    const team = await createTeam(stack);
    const [jobId] = await sendRequest(stack, team.id, [team.members[0]?.id ?? ''], 'hello');
    await stack.waitForJob(jobId ?? '', ['COMPLETED']);
    const text = await scrape(stack);
    expect(sample(text, 'agent_teams_admissions_total{runtime="scripted"}')).toBe(1);
    expect(sample(text, 'agent_teams_turn_duration_seconds_count{runtime="scripted",outcome="completed"}')).toBe(1);
    expect(sample(text, 'agent_teams_model_tokens_total{direction="input"}')).toBe(0);
    expect(sample(text, 'agent_teams_model_cost_total')).toBe(0);
    expect(sample(text, 'agent_teams_model_cached_input_tokens_total')).toBe(0);
    expect(sample(text, 'agent_teams_live_sockets')).toBe(0);
    expect(text).toContain('# TYPE agent_teams_event_lag_seconds histogram');
    // Nothing unfinished is left, so no owner has a job series.
    expect(text).not.toMatch(/^agent_teams_jobs\{/m);
  });

  it("passes once for a turn on an idle server, at its end: its admission rides the request's commit", async () => {
    stack = await createGraphqlStack();
    const team = await createTeam(stack);
    await stack.app.scheduler?.idle();
    const passes = async () =>
      sample(await scrape(stack as GraphqlStack), 'agent_teams_scheduler_passes_total{kind="admission"}');
    const admissions = async () =>
      sample(await scrape(stack as GraphqlStack), 'agent_teams_admissions_total{runtime="scripted"}') ?? 0;
    const before = (await passes()) ?? 0;
    expect(before).toBeGreaterThanOrEqual(1);
    // A turn that runs a while, so each of its commits is heard on its own.
    const [jobId] = await sendRequest(stack, team.id, [team.members[0]?.id ?? ''], '!sleep 150');
    await stack.waitForJob(jobId ?? '', ['COMPLETED']);
    await stack.app.scheduler?.idle();
    // The admission rode the enqueue (decision 0223), and neither that commit nor the steps that
    // keep the job running wake a pass: only the slot its end frees does.
    expect(await passes()).toBe(before + 1);
    // One turn counted once, though its run was started again after the acknowledgement grace.
    expect(await admissions()).toBe(1);
    expect(
      sample(await scrape(stack), 'agent_teams_turn_duration_seconds_count{runtime="scripted",outcome="completed"}'),
    ).toBe(1);
  });

  it('shows queued jobs by owner while no scheduler admits them', async () => {
    stack = await createGraphqlStack({ scheduler: false });
    const team = await createTeam(stack);
    await sendRequest(stack, team.id, [team.members[0]?.id ?? '', team.members[1]?.id ?? ''], 'wait');
    const text = await scrape(stack);
    expect(sample(text, 'agent_teams_jobs{owner="alice",state="queued"}')).toBe(2);
    expect(sample(text, 'agent_teams_jobs{owner="alice",state="active"}')).toBeUndefined();
  });

  it('shows a job waiting for a person as waiting (it was counted nowhere)', async () => {
    stack = await createGraphqlStack();
    const team = await createTeam(stack);
    const [jobId = ''] = await sendRequest(stack, team.id, [team.members[0]?.id ?? ''], '!ask Which region?');
    await stack.waitForJob(jobId, ['WAITING_INPUT']);
    const text = await scrape(stack);
    expect(sample(text, 'agent_teams_jobs{owner="alice",state="waiting"}')).toBe(1);
    expect(sample(text, 'agent_teams_jobs{owner="alice",state="active"}')).toBeUndefined();
  });
});

describe('/metrics spend', () => {
  it("shows each owner's spend of the current UTC day, in tokens and in cost, and the cached input tokens", async () => {
    stack = await createGraphqlStack();
    const team = await createTeam(stack);
    const [jobId] = await sendRequest(stack, team.id, [team.members[0]?.id ?? ''], 'hello');
    await stack.waitForJob(jobId ?? '', ['COMPLETED']);
    const [job] = await stack.app.store.findJobs([asJobId(jobId ?? '')]);
    if (job === undefined) throw new Error('the job is gone');
    const entry = { teamId: job.teamId, jobId: job.id, conversationId: job.conversationId, model: 'fake' };
    const now = new Date().toISOString();
    const call = { ...entry, id: 'call-1', inputTokens: 120, cachedInputTokens: 96, outputTokens: 30, cost: 0.25 };
    await stack.app.store.recordUsage(call, now);
    await stack.app.store.recordUsage({ ...entry, id: 'call-2', inputTokens: 40, outputTokens: 10, cost: 0.5 }, now);
    const text = await scrape(stack);
    expect(sample(text, 'agent_teams_model_tokens_total{direction="input"}')).toBe(160);
    expect(sample(text, 'agent_teams_model_cached_input_tokens_total')).toBe(96);
    expect(sample(text, 'agent_teams_owner_spend_today{owner="alice",unit="tokens"}')).toBe(200);
    expect(sample(text, 'agent_teams_owner_spend_today{owner="alice",unit="cost"}')).toBe(0.75);
    expect(sample(text, 'agent_teams_owner_spend_today{owner="bob",unit="tokens"}')).toBeUndefined();
  });
});

describe('/ready', () => {
  it('answers 503 before the scheduler starts, 200 once it runs, and 503 after close', async () => {
    stack = await createGraphqlStack();
    const ready = async () => {
      const response = await stack?.server.yoga.fetch('http://localhost/ready');
      return { status: response?.status, body: await response?.json() };
    };
    expect(await ready()).toEqual({
      status: 200,
      body: { status: 'ready', database: 'ok', migrations: 'ok', scheduler: 'running' },
    });
    await stack.app.scheduler?.stop();
    await stack.close();
    const after = await ready();
    expect(after.status).toBe(503);
    expect(after.body).toMatchObject({ status: 'unavailable', scheduler: 'stopped' });
    stack = null;
  });
});
