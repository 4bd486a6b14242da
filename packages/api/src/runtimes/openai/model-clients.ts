import OpenAI from 'openai';
import { ModelCallError } from './chat-call.js';
import type { OpenAiSettings } from './openai-settings.js';

/** One official `openai` client per base URL and key, made on first use. */
export class ModelClients {
  readonly #cache = new Map<string, OpenAI>();
  readonly #env: Readonly<Record<string, string | undefined>>;

  /** @param env where `apiKeyEnv` names are looked up. */
  constructor(env: Readonly<Record<string, string | undefined>>) {
    this.#env = env;
  }

  /** The client for `settings`' base URL and key; throws `ModelCallError('access')` when the key variable is unset. */
  client(settings: OpenAiSettings): OpenAI {
    const apiKey = settings.apiKeyEnv === null ? 'not-needed' : this.#env[settings.apiKeyEnv];
    if (apiKey === undefined || apiKey === '') {
      const unset = `The environment variable ${settings.apiKeyEnv} holding the API key is not set.`;
      throw new ModelCallError('access', unset);
    }
    const cacheKey = `${settings.baseUrl}\n${apiKey}`;
    let client = this.#cache.get(cacheKey);
    if (!client) {
      client = new OpenAI({
        baseURL: settings.baseUrl,
        apiKey,
        maxRetries: 0,
        logLevel: 'off',
        // The global fetch, looked up per call (so an HTTP-boundary mock installed later applies).
        fetch: (input, init) => globalThis.fetch(input, init),
      });
      this.#cache.set(cacheKey, client);
    }
    return client;
  }
}
