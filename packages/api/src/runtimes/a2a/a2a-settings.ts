/** The per-agent settings of `runtime: "a2a"` (besides the common `timeoutMs`). */
export interface A2aSettings {
  /** Where the agent card is read: the card's own URL (ends in `.json`), else `<url>/.well-known/agent-card.json`. */
  readonly cardUrl: string;
  /** Name of the environment variable holding the bearer token sent to the agent; null sends none. */
  readonly apiKeyEnv: string | null;
}

/** The keys `runtime: "a2a"` accepts besides the common agent keys. */
export const A2A_SETTING_KEYS: readonly string[] = ['url', 'apiKeyEnv'];

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A setting that cannot be used: which key and why. */
export class A2aSettingsError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
    this.name = 'A2aSettingsError';
  }
}

/**
 * The card URL of an agent `url`: a URL ending in `.json` is the card itself; any other is the
 * agent's base URL, under which the card is at `.well-known/agent-card.json`.
 */
export function cardUrlOf(url: URL): string {
  if (url.pathname.endsWith('.json')) return url.href;
  const base = new URL(url.href);
  if (!base.pathname.endsWith('/')) base.pathname = `${base.pathname}/`;
  return new URL('.well-known/agent-card.json', base).href;
}

/**
 * Validates the settings of an `a2a` agent.
 *
 * @throws A2aSettingsError naming the key (the config loader prefixes the agent's JSON path).
 */
export function parseA2aSettings(raw: Readonly<Record<string, unknown>>): A2aSettings {
  const value = raw.url;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new A2aSettingsError('url', 'url is required for runtime "a2a": the agent\'s base URL or its card URL');
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new A2aSettingsError('url', 'url must be an absolute http(s) URL, e.g. https://agents.example/analyst');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new A2aSettingsError('url', 'url must use http or https');
  }
  const apiKeyEnv = raw.apiKeyEnv ?? null;
  if (apiKeyEnv !== null && (typeof apiKeyEnv !== 'string' || !ENV_NAME.test(apiKeyEnv))) {
    throw new A2aSettingsError('apiKeyEnv', 'apiKeyEnv must name an environment variable (letters, digits, _)');
  }
  return { cardUrl: cardUrlOf(url), apiKeyEnv };
}
