// The usage of a model call that failed after the provider took it (its answer began and broke
// off, was malformed, carried an error event or ended early; or a refusal that reported usage),
// where budgets see it: the model_usage rows, written before the call's reservation is released,
// on SQLite and on PostgreSQL. Cancelled calls are test/openai/cancelled-call-usage.ts's.
import type { JobId, RunState, TeamId } from '@agent-teams/core';
import { afterAll, describe, expect, it } from 'vitest';
import {
  context,
  openAiAgent,
  type RuntimeFixture,
  requestInput,
  runtimeOver,
  settle,
  until,
  useRuntimeFixture,
} from '../../../test/openai/runtime-fixture.js';
import { RUNTIME_TARGETS, runtimeTargets } from '../../../test/openai/runtime-targets.js';
import { type LoopbackProvider, startLoopbackProvider } from '../../../test/support/loopback-provider.js';
import type { SpendGuard } from '../spend-guard.js';

/** The output allowance each call reserves (`maxOutputTokens`'s default). */
const ALLOWANCE = 1024;

/**
 * A spend guard that holds every call and notes how many usage rows existed at each release. As
 * the store does, a reservation made again while one is held replaces it (one id per job).
 */
class RecordingSpend implements SpendGuard {
  readonly reserved: number[] = [];
  /** Reservations made again while one was held (before the retry of a billed refusal). */
  readonly renewed: number[] = [];
  readonly rowsAtRelease: number[] = [];
  #held = false;
  constructor(private readonly current: RuntimeFixture) {}
  async reserve(call: { teamId: TeamId; jobId: JobId; tokens: number; cost: number }) {
    if (this.#held) {
      this.renewed.push(call.tokens);
      return { ok: true as const, reserved: true, release: async () => {} };
    }
    this.#held = true;
    this.reserved.push(call.tokens);
    const release = async () => {
      this.#held = false;
      this.rowsAtRelease.push((await usageRows(this.current)).length);
    };
    return { ok: true as const, reserved: true, release };
  }
  /** The prompt estimate of the only call: its reservation less the output allowance. */
  promptTokens(): number {
    expect(this.reserved).toHaveLength(1);
    return (this.reserved[0] ?? 0) - ALLOWANCE;
  }
}

async function usageRows(current: RuntimeFixture) {
  const rows = await current.database.db
    .selectFrom('model_usage')
    .select(['id', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'cost'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    input: Number(row.input_tokens),
    cached: Number(row.cached_input_tokens),
    output: Number(row.output_tokens),
    cost: Number(row.cost),
  }));
}

/** One run of job_1 with a recording spend guard (at `baseUrl` when given), to its end. */
async function run(current: RuntimeFixture, settings: Record<string, unknown> = {}) {
  const spend = new RecordingSpend(current);
  const runtime = runtimeOver(current, { spend });
  try {
    const ctx = context('job_1', openAiAgent(settings));
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    const state: RunState = await settle(runtime, runId, ctx);
    await until(() => spend.rowsAtRelease.length === spend.reserved.length, 'the reservation to be released');
    return { state, spend, rows: await usageRows(current) };
  } finally {
    runtime.dispose();
  }
}

/** One streamed chunk (`choices[0].delta` = `delta`), with `extra` fields beside. */
function chunk(delta: object, extra: object = {}): string {
  const choices = [{ index: 0, delta, finish_reason: null }];
  return JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices, ...extra });
}

const TEXT = 'Thinking about the release'; // 26 bytes: 7 tokens at bytes / 4
const ARGS = '{"query":"plan"}'; // 16 bytes
const TOOL_DELTA = {
  tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_team_history', arguments: ARGS } }],
};
const FAILED_ROW = /^usage_orun_job_1_\d+_failed_/;
const REPORT = { prompt_tokens: 321, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 64 } };
const REPORTED = { input: 321, cached: 64, output: 7 };

let loopback: LoopbackProvider | null = null;

/** A provider on loopback that streams `data` and then drops the connection. */
async function cuttingProvider(data: readonly string[]): Promise<string> {
  loopback = await startLoopbackProvider((_request, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(data.map((item) => `data: ${item}\n\n`).join(''));
    setTimeout(() => res.socket?.destroy(), 20);
  });
  return loopback.baseUrl;
}

const tokensOf = (rows: Awaited<ReturnType<typeof usageRows>>) =>
  rows.map(({ input, cached, output }) => ({ input, cached, output }));

const CHECKS: readonly (readonly [string, (current: RuntimeFixture) => Promise<void>])[] = [
  [
    'counts a stream whose connection broke off at its prompt estimate and the bytes received / 4, once',
    async (current) => {
      const baseUrl = await cuttingProvider([chunk({ content: TEXT }), chunk(TOOL_DELTA)]);
      const { state, spend, rows } = await run(current, {
        baseUrl,
        pricing: { inputPerMillion: 2, outputPerMillion: 8 },
      });
      expect(state.state === 'failed' && state.error).toMatch(/stream broke off/);
      const input = spend.promptTokens();
      const output = Math.ceil((26 + 16) / 4);
      expect(rows).toEqual([
        { id: expect.stringMatching(FAILED_ROW), input, cached: 0, output, cost: expect.any(Number) },
      ]);
      expect(rows[0]?.cost).toBeCloseTo((input * 2 + output * 8) / 1e6, 12);
      // Written before the reservation was released: the budget never counted neither.
      expect(spend.rowsAtRelease).toEqual([1]);
      expect(loopback?.seen).toHaveLength(1);
    },
  ],
  [
    "counts a stream cut by the provider's error event mid-answer, which is not retried",
    async (current) => {
      const error = JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } });
      current.provider.enqueue({ kind: 'raw-sse', data: [chunk({ content: TEXT }), error] });
      const { state, spend, rows } = await run(current);
      expect(state.state === 'failed' && state.error).toMatch(
        /reported an error in the stream: The server had an error/,
      );
      expect(current.provider.requests).toHaveLength(1);
      expect(tokensOf(rows)).toEqual([{ input: spend.promptTokens(), cached: 0, output: 7 }]);
      expect(rows[0]?.id).toMatch(FAILED_ROW);
    },
  ],
  [
    'counts a stream that ends without [DONE] or a finish reason at its estimate',
    async (current) => {
      current.provider.enqueue({ kind: 'raw-sse', data: [chunk({ content: TEXT })] });
      const { state, spend, rows } = await run(current);
      expect(state.state === 'failed' && state.error).toMatch(/cut stream/);
      expect(tokensOf(rows)).toEqual([{ input: spend.promptTokens(), cached: 0, output: 7 }]);
      expect(spend.rowsAtRelease).toEqual([1]);
    },
  ],
  [
    "takes the provider's usage report, when it came before a malformed chunk",
    async (current) => {
      current.provider.enqueue({
        kind: 'raw-sse',
        data: [chunk(TOOL_DELTA, { usage: REPORT }), '{"choices": [ {broken'],
      });
      const { state, rows } = await run(current);
      expect(state.state === 'failed' && state.error).toMatch(/malformed stream chunk/);
      expect(tokensOf(rows)).toEqual([REPORTED]);
    },
  ],
  [
    'counts a non-streamed answer whose body broke off at its prompt estimate',
    async (current) => {
      loopback = await startLoopbackProvider((_request, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"choices":[{"index":0,');
        setTimeout(() => res.destroy(), 20);
      });
      const { state, spend, rows } = await run(current, { baseUrl: loopback.baseUrl, stream: false });
      expect(state.state === 'failed' && state.error).toMatch(/answer broke off/);
      expect(tokensOf(rows)).toEqual([{ input: spend.promptTokens(), cached: 0, output: 0 }]);
    },
  ],
  [
    'retries a transient error event that came first, counting nothing for it without a report',
    async (current) => {
      current.provider.enqueue(
        { kind: 'raw-sse', data: [JSON.stringify({ error: { type: 'overloaded_error', message: 'Overloaded' } })] },
        { kind: 'answer', content: 'after the overload', usage: { prompt_tokens: 40, completion_tokens: 5 } },
      );
      const { state, rows } = await run(current);
      expect(state).toEqual({ state: 'completed', answer: 'after the overload' });
      expect(current.provider.requests).toHaveLength(2);
      expect(rows.map(({ id, input, output }) => ({ id, input, output }))).toEqual([
        { id: expect.stringMatching(/^usage_orun_job_1_\d+_[0-9a-f-]{36}$/), input: 40, output: 5 },
      ]);
    },
  ],
  [
    'counts each attempt the provider billed once: a reported refusal, then a cut answer (not the 429)',
    async (current) => {
      const refusal = JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'Slow down' }, usage: REPORT });
      current.provider.enqueue(
        { kind: 'error', status: 429, headers: { 'retry-after-ms': '1' } },
        { kind: 'raw-sse', data: [refusal] },
        { kind: 'raw-sse', data: [chunk({ content: TEXT })] },
      );
      const { state, spend, rows } = await run(current);
      expect(state.state === 'failed' && state.error).toMatch(/cut stream/);
      expect(current.provider.requests).toHaveLength(3);
      const estimate = { input: spend.promptTokens(), cached: 0, output: 7 };
      expect(tokensOf(rows).sort((a, b) => a.input - b.input)).toEqual(
        [REPORTED, estimate].sort((a, b) => a.input - b.input),
      );
      expect(new Set(rows.map((row) => row.id)).size).toBe(2);
      expect(spend.rowsAtRelease).toEqual([2]);
      // Reserved again before the retry of the billed refusal, not before that of the bare 429.
      expect(spend.renewed).toEqual(spend.reserved);
    },
  ],
  [
    "fails on a permanent error event that came first, counting the provider's report of it",
    async (current) => {
      const refusal = JSON.stringify({ error: { type: 'invalid_request_error', message: 'Bad tools' }, usage: REPORT });
      current.provider.enqueue({ kind: 'raw-sse', data: [refusal] });
      const { state, rows } = await run(current);
      expect(state.state === 'failed' && state.error).toMatch(/reported an error in the stream: Bad tools/);
      expect(current.provider.requests).toHaveLength(1);
      expect(tokensOf(rows)).toEqual([REPORTED]);
    },
  ],
];

const targets = runtimeTargets();
const fixture = useRuntimeFixture(targets.open);

afterAll(async () => {
  await loopback?.close();
});

describe.each(RUNTIME_TARGETS)('OpenAiRuntime: the usage of a failed call (%s)', (target) => {
  targets.use(target, 'agent_teams_failed_usage');
  for (const [name, check] of CHECKS) {
    it(name, async () => {
      try {
        await check(fixture());
      } finally {
        await loopback?.close();
        loopback = null;
      }
    });
  }
});
