import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_CALL_TOKENS, readUsage } from './provider-usage.js';

describe('readUsage', () => {
  it('reads the input, cached and output counts of an OpenAI usage block', () => {
    expect(
      readUsage({
        prompt_tokens: 2006,
        completion_tokens: 300,
        total_tokens: 2306,
        prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
      }),
    ).toEqual({ inputTokens: 2006, cachedInputTokens: 1920, outputTokens: 300 });
  });

  it('reads no cached tokens when the provider reports none', () => {
    const none = { inputTokens: 10, cachedInputTokens: 0, outputTokens: 2 };
    expect(readUsage({ prompt_tokens: 10, completion_tokens: 2 })).toEqual(none);
    expect(readUsage({ prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: null })).toEqual(none);
    expect(readUsage({ prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: {} })).toEqual(none);
    expect(readUsage({ prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: [5] })).toEqual(none);
    expect(readUsage({ prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: 5 })).toEqual(none);
  });

  it('is null without a usage object', () => {
    for (const usage of [null, undefined, 12, 'usage', true, [1, 2]]) expect(readUsage(usage)).toBeNull();
  });

  it("reads DeepSeek's prompt_cache_hit_tokens as the cached part, the larger when both fields come", () => {
    const deepSeek = {
      prompt_tokens: 1000,
      completion_tokens: 9,
      prompt_cache_hit_tokens: 640,
      prompt_cache_miss_tokens: 360,
    };
    expect(readUsage(deepSeek)).toEqual({ inputTokens: 1000, cachedInputTokens: 640, outputTokens: 9 });
    const both = (details: number, hit: unknown) =>
      readUsage({ ...deepSeek, prompt_tokens_details: { cached_tokens: details }, prompt_cache_hit_tokens: hit })
        ?.cachedInputTokens;
    expect([both(0, 640), both(512, 640), both(700, 640), both(512, 'x'), both(512, -3)]).toEqual([
      640, 640, 700, 512, 512,
    ]);
  });

  it('never reads more cached tokens than input tokens', () => {
    const at = (cached: number) =>
      readUsage({ prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: { cached_tokens: cached } })
        ?.cachedInputTokens;
    expect([at(99), at(100), at(101), at(1e9)]).toEqual([99, 100, 100, 100]);
  });

  it('reads a count that is not a whole number from 0 as 0, so a broken report never fails its call', () => {
    const broken = [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '12', null, {}, [3], true, -0.5];
    for (const value of broken) {
      const usage = {
        prompt_tokens: value,
        completion_tokens: value,
        prompt_tokens_details: { cached_tokens: value },
        prompt_cache_hit_tokens: value,
      };
      expect(readUsage(usage)).toEqual({ inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 });
      // Beside a valid input count, a broken cached count reads as none.
      expect(readUsage({ ...usage, prompt_tokens: 50 })?.cachedInputTokens).toBe(0);
    }
    // -0 is a whole number from 0: read as 0 too.
    expect(readUsage({ prompt_tokens: -0, completion_tokens: 3 })).toEqual({
      inputTokens: 0,
      cachedInputTokens: 0,
      outputTokens: 3,
    });
  });

  it(`takes a count above ${MAX_CALL_TOKENS} as that limit, at n − 1, n and n + 1`, () => {
    const read = (n: number) =>
      readUsage({ prompt_tokens: n, completion_tokens: n, prompt_tokens_details: { cached_tokens: n } });
    expect(MAX_CALL_TOKENS).toBe(100_000_000);
    // A row's two counts at the limit still add up within PostgreSQL's and GraphQL's 32 bits.
    expect(2 * MAX_CALL_TOKENS).toBeLessThan(2 ** 31 - 1);
    for (const [n, expected] of [
      [MAX_CALL_TOKENS - 1, MAX_CALL_TOKENS - 1],
      [MAX_CALL_TOKENS, MAX_CALL_TOKENS],
      [MAX_CALL_TOKENS + 1, MAX_CALL_TOKENS],
      [Number.MAX_SAFE_INTEGER, MAX_CALL_TOKENS],
      [2 ** 60, MAX_CALL_TOKENS],
    ] as const) {
      expect(read(n)).toEqual({ inputTokens: expected, cachedInputTokens: expected, outputTokens: expected });
    }
  });

  it('never throws and keeps every count a whole number from 0 to the limit, cached at most input, whatever JSON comes', () => {
    // Any JSON value, and usage objects whose fields (and details) are any JSON value: the
    // shapes a broken or hostile provider can put in its usage block.
    const anyJson = fc.jsonValue();
    const count = fc.oneof(anyJson, fc.integer({ min: -5, max: 2 * MAX_CALL_TOKENS }), fc.double());
    const usage = fc.oneof(
      anyJson,
      fc.record(
        {
          prompt_tokens: count,
          completion_tokens: count,
          prompt_cache_hit_tokens: count,
          prompt_tokens_details: fc.oneof(anyJson, fc.record({ cached_tokens: count }, { requiredKeys: [] })),
        },
        { requiredKeys: [] },
      ),
    );
    const valid = (n: number) => Number.isInteger(n) && n >= 0 && n <= MAX_CALL_TOKENS && !Object.is(n, -0);
    fc.assert(
      fc.property(usage, (value) => {
        const read = readUsage(value);
        if (read === null) return typeof value !== 'object' || value === null || Array.isArray(value);
        return (
          valid(read.inputTokens) &&
          valid(read.cachedInputTokens) &&
          valid(read.outputTokens) &&
          read.cachedInputTokens <= read.inputTokens
        );
      }),
      { numRuns: 2_000 },
    );
  });
});
