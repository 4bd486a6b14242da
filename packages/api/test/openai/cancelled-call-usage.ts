import type { JobId, TeamId } from '@agent-teams/core';
import { expect } from 'vitest';
import type { SpendGuard } from '../../src/runtimes/spend-guard.js';
import { serveChatProvider } from '../support/chat-provider-server.js';
import {
  context,
  openAiAgent,
  type RuntimeFixture,
  requestInput,
  runtimeOver,
  settle,
  until,
} from './runtime-fixture.js';

/** The output allowance each call reserves (`maxOutputTokens`'s default). */
const ALLOWANCE = 1024;
const PRICING = { inputPerMillion: 2, outputPerMillion: 8 };

/** A spend guard that holds every call, remembering what it reserved and how often it released. */
class RecordingSpend implements SpendGuard {
  readonly reserved: { teamId: TeamId; jobId: JobId; tokens: number; cost: number }[] = [];
  released = 0;
  async reserve(call: { teamId: TeamId; jobId: JobId; tokens: number; cost: number }) {
    this.reserved.push(call);
    const release = async () => {
      this.released += 1;
    };
    return { ok: true as const, reserved: true, release };
  }
  /** The prompt estimate of the `index`-th call: its reservation less the output allowance. */
  promptTokens(index = 0): number {
    const held = this.reserved[index];
    if (!held) throw new Error(`no reservation ${index}`);
    return held.tokens - ALLOWANCE;
  }
}

/** One streamed chunk of the provider (`choices[0].delta` = `delta`), with `extra` fields beside. */
function chunk(delta: object, extra: object = {}): string {
  const choices = [{ index: 0, delta, finish_reason: null }];
  return JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices, ...extra });
}

const TEXT = 'Thinking about the release'; // 26 bytes
const ARGS = '{"query":"plan"}'; // 16 bytes
const TOOL_DELTA = {
  tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_team_history', arguments: ARGS } }],
};

async function usageRows(current: RuntimeFixture) {
  const rows = await current.database.db
    .selectFrom('model_usage')
    .select(['id', 'job_id', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'cost'])
    .orderBy('created_at')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    jobId: row.job_id,
    input: Number(row.input_tokens),
    cached: Number(row.cached_input_tokens),
    output: Number(row.output_tokens),
    cost: Number(row.cost),
  }));
}

/**
 * Starts one run over real HTTP with a recording spend guard, waits for `ready`, cancels it and
 * waits for it to settle cancelled and its execution to end. @returns the guard.
 */
async function cancelRun(
  current: RuntimeFixture,
  settings: Record<string, unknown>,
  ready: () => boolean,
): Promise<RecordingSpend> {
  const spend = new RecordingSpend();
  const runtime = runtimeOver(current, { spend });
  const notices: string[] = [];
  runtime.subscribe((notice) => notices.push(JSON.stringify(notice)));
  const served = await serveChatProvider(current.provider);
  try {
    const ctx = context('job_1', openAiAgent({ baseUrl: served.baseUrl, pricing: PRICING, ...settings }));
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    await until(() => ready() || notices.some((n) => n.includes('read_team_history')), 'the call to be under way');
    await runtime.cancel({ runId, context: ctx });
    expect(await settle(runtime, runId, ctx)).toEqual({ state: 'cancelled' });
    // The reservation is released once the execution has recorded what it will.
    await until(() => spend.released === spend.reserved.length, 'the reservation to be released');
  } finally {
    runtime.dispose();
    await served.close();
  }
  return spend;
}

/**
 * A streamed answer cancelled after some text and a tool call's arguments arrived: the call is
 * counted at its prompt estimate (the reservation's) and the received bytes / 4, at the agent's prices.
 */
export async function checkCancelledStreamCounted(current: RuntimeFixture): Promise<void> {
  current.provider.enqueue({ kind: 'hang', data: [chunk({ content: TEXT }), chunk(TOOL_DELTA)] });
  const spend = await cancelRun(current, {}, () => false);
  const input = spend.promptTokens();
  expect(input).toBeGreaterThan(0);
  const output = Math.ceil((26 + 16) / 4);
  const rows = await usageRows(current);
  expect(rows).toEqual([
    {
      id: expect.stringMatching(/^usage_orun_job_1_\d+_cancelled_/),
      jobId: 'job_1',
      input,
      cached: 0,
      output,
      cost: expect.any(Number),
    },
  ]);
  expect(rows[0]?.cost).toBeCloseTo((input * 2 + output * 8) / 1e6, 12);
}

/** The provider's usage report, when it came before the abort, is taken as it is. */
export async function checkCancelledStreamReported(current: RuntimeFixture): Promise<void> {
  const usage = { prompt_tokens: 321, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 64 } };
  current.provider.enqueue({ kind: 'hang', data: [chunk(TOOL_DELTA, { usage })] });
  await cancelRun(current, {}, () => false);
  const rows = await usageRows(current);
  expect(rows.map(({ input, cached, output }) => ({ input, cached, output }))).toEqual([
    { input: 321, cached: 64, output: 7 },
  ]);
  expect(rows[0]?.cost).toBeCloseTo((257 * 2 + 64 * 2 + 7 * 8) / 1e6, 12);
}

/** A non-streamed call cancelled while its answer is awaited: its prompt estimate, no output. */
export async function checkCancelledWaitCounted(current: RuntimeFixture): Promise<void> {
  current.provider.enqueue({ kind: 'hang' });
  const spend = await cancelRun(current, { stream: false }, () => current.provider.openStreams === 1);
  const input = spend.promptTokens();
  const rows = await usageRows(current);
  expect(rows.map(({ input, cached, output }) => ({ input, cached, output }))).toEqual([
    { input, cached: 0, output: 0 },
  ]);
  expect(rows[0]?.cost).toBeCloseTo((input * 2) / 1e6, 12);
}

/** A call cancelled while it waits to retry a refused request sent nothing billable: no row. */
export async function checkCancelledBackoffFree(current: RuntimeFixture): Promise<void> {
  current.provider.enqueue({ kind: 'error', status: 429, headers: { 'retry-after-ms': '20000' } });
  // Cancelled once the refusal has surely arrived (a cancel before it would count the prompt).
  let seenAt = Number.POSITIVE_INFINITY;
  await cancelRun(current, {}, () => {
    if (current.provider.requests.length === 1) seenAt = Math.min(seenAt, Date.now());
    return Date.now() - seenAt > 250;
  });
  expect(await usageRows(current)).toEqual([]);
}
