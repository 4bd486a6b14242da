import { exceedsCodePoints } from '@agent-teams/core';
import { HISTORY_TEAM_CONTEXT_VALUES, type HistoryTeamContext } from './history-team-context.js';

/** The per-agent settings of `runtime: "openai"` (config keys of the contract README, plus three of its own). */
export interface OpenAiSettings {
  /** Model name as the provider knows it, e.g. `gpt-4o-mini`, `deepseek-chat`, `llama3.1`. */
  readonly model: string;
  /** API base URL up to and including `/v1` (no trailing slash). */
  readonly baseUrl: string;
  /** Name of the environment variable holding the API key; null for keyless local servers. */
  readonly apiKeyEnv: string | null;
  /** The agent's own instructions, placed before the runtime's fixed team rules. */
  readonly systemPrompt: string | null;
  /** Sampling temperature (0–2); null leaves the provider's default. */
  readonly temperature: number | null;
  /** Most rounds of tool calls in one turn; then one last call with tools disabled. */
  readonly maxToolRounds: number;
  /** Stream the answer (SSE) so deltas reach `jobProgress`; false asks for one JSON answer. */
  readonly stream: boolean;
  /** Estimated-token budget of the conversation history sent with each call (see `context-window.ts`). */
  readonly maxContextTokens: number;
  /**
   * Most tokens one model call may answer with: sent to the provider as `max_tokens`, and the
   * output allowance of each call's budget reservation (default 1024).
   */
  readonly maxOutputTokens: number;
  /** Which turn messages of the history send the team context they froze (decision 0242). */
  readonly historyTeamContext: HistoryTeamContext;
  /** Price per million tokens, in any currency; null records cost 0. */
  readonly pricing: Pricing | null;
}

/** An agent's prices per million tokens (`pricing`), in any currency. */
export interface Pricing {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
  /** Input tokens read from the provider's prompt cache; null: priced as other input (decision 0243). */
  readonly cachedInputPerMillion: number | null;
}

/** The keys `pricing` takes. */
const PRICING_KEYS: readonly string[] = ['inputPerMillion', 'outputPerMillion', 'cachedInputPerMillion'];

/** Defaults of the optional settings. */
export const OpenAiDefaults = {
  maxToolRounds: 8,
  stream: true,
  maxContextTokens: 24_000,
  maxOutputTokens: 1_024,
  historyTeamContext: 'latest',
} as const;

/** The keys `runtime: "openai"` accepts besides the common agent keys. */
export const OPENAI_SETTING_KEYS: readonly string[] = [
  'model',
  'baseUrl',
  'apiKeyEnv',
  'systemPrompt',
  'temperature',
  'maxToolRounds',
  'pricing',
  'stream',
  'maxContextTokens',
  'maxOutputTokens',
  'historyTeamContext',
];

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_SYSTEM_PROMPT_CHARS = 32_000;

/** A setting that cannot be used: which key and why. */
export class OpenAiSettingsError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
    this.name = 'OpenAiSettingsError';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(raw: Record<string, unknown>, key: string, required: boolean): string | null {
  const value = raw[key];
  if (value === undefined || value === null) {
    if (required) throw new OpenAiSettingsError(key, `${key} is required for runtime "openai"`);
    return null;
  }
  if (typeof value !== 'string' || value.trim() === '') {
    throw new OpenAiSettingsError(key, `${key} must be a non-blank string`);
  }
  return value.trim();
}

function integer(raw: Record<string, unknown>, key: string, min: number, max: number, fallback: number): number {
  const value = raw[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new OpenAiSettingsError(key, `${key} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function price(value: unknown, key: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new OpenAiSettingsError(`pricing.${key}`, `pricing.${key} must be a number ≥ 0`);
  }
  return value;
}

function parseBaseUrl(raw: Record<string, unknown>): string {
  const value = text(raw, 'baseUrl', true) as string;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OpenAiSettingsError('baseUrl', 'baseUrl must be an absolute http(s) URL, e.g. https://api.openai.com/v1');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OpenAiSettingsError('baseUrl', 'baseUrl must use http or https');
  }
  return value.replace(/\/+$/, '');
}

/**
 * Validates and completes the settings of an `openai` agent.
 *
 * @throws OpenAiSettingsError naming the key (the config loader prefixes the agent's JSON path).
 */
export function parseOpenAiSettings(raw: Readonly<Record<string, unknown>>): OpenAiSettings {
  const settings = raw as Record<string, unknown>;
  const apiKeyEnv = text(settings, 'apiKeyEnv', false);
  if (apiKeyEnv !== null && !ENV_NAME.test(apiKeyEnv)) {
    throw new OpenAiSettingsError('apiKeyEnv', 'apiKeyEnv must name an environment variable (letters, digits, _)');
  }
  const systemPrompt = text(settings, 'systemPrompt', false);
  if (systemPrompt !== null && exceedsCodePoints(systemPrompt, MAX_SYSTEM_PROMPT_CHARS)) {
    throw new OpenAiSettingsError('systemPrompt', `systemPrompt must be at most ${MAX_SYSTEM_PROMPT_CHARS} characters`);
  }
  const temperature = settings.temperature ?? null;
  if (temperature !== null && (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2))) {
    throw new OpenAiSettingsError('temperature', 'temperature must be a number from 0 to 2');
  }
  const historyTeamContext = settings.historyTeamContext ?? OpenAiDefaults.historyTeamContext;
  if (!HISTORY_TEAM_CONTEXT_VALUES.includes(historyTeamContext as HistoryTeamContext)) {
    throw new OpenAiSettingsError('historyTeamContext', 'historyTeamContext must be "latest" or "every"');
  }
  const stream = settings.stream ?? OpenAiDefaults.stream;
  if (typeof stream !== 'boolean') throw new OpenAiSettingsError('stream', 'stream must be true or false');
  let pricing: OpenAiSettings['pricing'] = null;
  if (settings.pricing !== undefined && settings.pricing !== null) {
    if (!isRecord(settings.pricing)) {
      throw new OpenAiSettingsError(
        'pricing',
        'pricing must be { "inputPerMillion": n, "outputPerMillion": n } (and optionally "cachedInputPerMillion": n)',
      );
    }
    for (const key of Object.keys(settings.pricing)) {
      if (!PRICING_KEYS.includes(key)) {
        throw new OpenAiSettingsError(`pricing.${key}`, `pricing.${key} is not a pricing key`);
      }
    }
    const cached = settings.pricing.cachedInputPerMillion ?? null;
    pricing = {
      inputPerMillion: price(settings.pricing.inputPerMillion, 'inputPerMillion'),
      outputPerMillion: price(settings.pricing.outputPerMillion, 'outputPerMillion'),
      cachedInputPerMillion: cached === null ? null : price(cached, 'cachedInputPerMillion'),
    };
  }
  return {
    model: text(settings, 'model', true) as string,
    baseUrl: parseBaseUrl(settings),
    apiKeyEnv,
    systemPrompt,
    temperature: temperature as number | null,
    maxToolRounds: integer(settings, 'maxToolRounds', 0, 64, OpenAiDefaults.maxToolRounds),
    stream,
    maxContextTokens: integer(settings, 'maxContextTokens', 1_000, 2_000_000, OpenAiDefaults.maxContextTokens),
    maxOutputTokens: integer(settings, 'maxOutputTokens', 1, 1_000_000, OpenAiDefaults.maxOutputTokens),
    historyTeamContext: historyTeamContext as HistoryTeamContext,
    pricing,
  };
}

/**
 * The cost of one call under `pricing` (0 without pricing): `cachedInputTokens` of its
 * `inputTokens` at the cached price when one is set, the rest at the input price.
 */
export function callCost(
  pricing: OpenAiSettings['pricing'],
  inputTokens: number,
  outputTokens: number,
  cachedInputTokens = 0,
): number {
  if (pricing === null) return 0;
  const cachedPrice = pricing.cachedInputPerMillion ?? pricing.inputPerMillion;
  const uncached = inputTokens - cachedInputTokens;
  return (
    (uncached * pricing.inputPerMillion + cachedInputTokens * cachedPrice + outputTokens * pricing.outputPerMillion) /
    1_000_000
  );
}

/**
 * The most a call of `inputTokens` may cost for its input, whatever part of it the provider
 * reads from its cache: a budget reservation prices it so (a cached price above the input price
 * is an operator's choice, and must not let a call pass the budget).
 */
export function reservedCost(pricing: OpenAiSettings['pricing'], inputTokens: number, outputTokens: number): number {
  if (pricing === null) return 0;
  const dearer = (pricing.cachedInputPerMillion ?? 0) > pricing.inputPerMillion;
  return callCost(pricing, inputTokens, outputTokens, dearer ? inputTokens : 0);
}
