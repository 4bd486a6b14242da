// During a provider outage turns retried until their deadline without a line in the log: an
// operator saw jobs end PROVIDER_UNAVAILABLE with nothing before them. Each retry is now logged
// with the job and the provider's reason.
import { describe, expect, it } from 'vitest';
import {
  context,
  openAiAgent,
  type RuntimeFixture,
  requestInput,
  settle,
  useRuntimeFixture,
} from '../../../test/openai/runtime-fixture.js';
import { LOGGED_RETRY_REASON_CHARS, loggedReason } from './retry-log.js';

const fixture = useRuntimeFixture();
const RETRYING = 'model call failed; retrying';

async function run(current: RuntimeFixture) {
  const ctx = context('job_1', openAiAgent());
  const { runId } = await current.runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
  return { runId, ctx, outcome: await settle(current.runtime, runId, ctx) };
}

const retries = (current: RuntimeFixture) => current.logger.entries.filter((entry) => entry.message === RETRYING);

describe('OpenAiRuntime: a model call the provider refuses and the runtime tries again', () => {
  it('logs each retry at warn with the job, the attempt, the wait and the reason', async () => {
    const current = fixture();
    current.provider.enqueue(
      { kind: 'error', status: 429, message: 'Rate limit reached' },
      { kind: 'error', status: 503, message: 'Overloaded' },
      { kind: 'answer', content: 'done' },
    );
    const { runId, ctx, outcome } = await run(current);
    expect(outcome).toEqual({ state: 'completed', answer: 'done' });
    const logged = retries(current);
    expect(logged.map((entry) => entry.level)).toEqual(['warn', 'warn']);
    expect(logged.map((entry) => entry.fields)).toEqual([
      expect.objectContaining({ jobId: 'job_1', teamId: ctx.teamId, runId, step: 1, attempt: 1 }),
      expect.objectContaining({ jobId: 'job_1', attempt: 2 }),
    ]);
    expect(String(logged[0]?.fields?.reason)).toContain('Rate limit reached');
    expect(String(logged[1]?.fields?.reason)).toContain('Overloaded');
    expect(typeof logged[0]?.fields?.retryInMs).toBe('number');
  });

  it(`cuts a reason longer than ${LOGGED_RETRY_REASON_CHARS} characters`, async () => {
    const current = fixture();
    current.provider.enqueue(
      { kind: 'error', status: 500, message: 'x'.repeat(LOGGED_RETRY_REASON_CHARS * 4) },
      { kind: 'answer', content: 'done' },
    );
    await run(current);
    const [logged] = retries(current);
    expect(String(logged?.fields?.reason)).toHaveLength(LOGGED_RETRY_REASON_CHARS + 1);
  });

  it('logs nothing for a call answered at once', async () => {
    const current = fixture();
    current.provider.enqueue({ kind: 'answer', content: 'at once' });
    await run(current);
    expect(retries(current)).toEqual([]);
  });
});

describe('loggedReason at its limit', () => {
  const N = LOGGED_RETRY_REASON_CHARS;
  const LONE_HIGH = /[\ud800-\udbff](?![\udc00-\udfff])/;
  for (const [name, unit] of [
    ['ASCII', 'x'],
    ['CJK', '汉'],
    ['emoji', '😀'],
  ] as const) {
    it(`keeps ${name} of ${N - 1} and ${N} units whole and cuts ${N + 1} without splitting a pair`, () => {
      const of = (n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
      expect(loggedReason(of(N - 1))).toBe(of(N - 1));
      expect(loggedReason(of(N))).toBe(of(N));
      const cut = loggedReason(`${of(N)}!`);
      expect(cut.endsWith('…')).toBe(true);
      expect(cut.length).toBeLessThanOrEqual(N + 1);
      expect(cut.slice(0, -1)).not.toMatch(LONE_HIGH);
      // Shifted by one unit, the cut falls inside a pair when the unit is one.
      expect(loggedReason(`a${of(N)}`).slice(0, -1)).not.toMatch(LONE_HIGH);
    });
  }

  it('keeps a lone surrogate of the reason as it came', () => {
    expect(loggedReason(`\udc00${'b'.repeat(N - 1)}`)).toBe(`\udc00${'b'.repeat(N - 1)}`);
    expect(loggedReason(`${'b'.repeat(N - 1)}\udc00c`)).toBe(`${'b'.repeat(N - 1)}\udc00…`);
  });
});
