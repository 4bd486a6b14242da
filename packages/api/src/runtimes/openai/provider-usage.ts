/** Token counts the provider reported for one call. */
export interface TokenUsage {
  readonly inputTokens: number;
  /** Of `inputTokens`, those the provider read from its prompt cache (0 when it says nothing). */
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
}

/**
 * The largest token count one call's report is taken at (100 million): a larger one is read as
 * this. Ten times the largest context window offered today; a provider that reports more is
 * broken. Far below 2³¹ − 1 (PostgreSQL's `integer`, GraphQL's `Int`), so a stored count never
 * fails the step's write after the call was paid for (and again at every retry), and a row's
 * counts added together still fit an `integer`.
 */
export const MAX_CALL_TOKENS = 100_000_000;

/**
 * A count of the provider's report: a whole number from 0 to {@link MAX_CALL_TOKENS}; anything
 * else it could send (a negative, a fraction, a string, NaN) reads as 0, so a broken report never
 * fails the call that it describes.
 */
function tokenCount(value: unknown): number {
  // `<= 0` takes JSON's -0 too, which would otherwise be stored and shown as "-0".
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) return 0;
  return Math.min(value, MAX_CALL_TOKENS);
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/**
 * Reads a provider's `usage` object (OpenAI's names), or null when there is none: `prompt_tokens`,
 * `completion_tokens` and the cached part of the input (decision 0243), which OpenAI reports as
 * `prompt_tokens_details.cached_tokens` and DeepSeek as `prompt_cache_hit_tokens` (the larger of
 * the two when both come). The cached count is at most the input count: a provider never reads
 * more of a prompt from its cache than it was sent.
 */
export function readUsage(usage: unknown): TokenUsage | null {
  const fields = record(usage);
  if (fields === null) return null;
  const inputTokens = tokenCount(fields.prompt_tokens);
  const cached = Math.max(
    tokenCount(record(fields.prompt_tokens_details)?.cached_tokens),
    tokenCount(fields.prompt_cache_hit_tokens),
  );
  return {
    inputTokens,
    cachedInputTokens: Math.min(cached, inputTokens),
    outputTokens: tokenCount(fields.completion_tokens),
  };
}
