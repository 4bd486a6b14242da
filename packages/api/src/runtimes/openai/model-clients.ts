import { ModelCallError } from './chat-call.js';
import type { OpenAiSettings } from './openai-settings.js';
import { ProviderHttp } from './provider-http.js';

/** Where one agent's model calls go: the Chat Completions address, the headers, the connections. */
export interface ModelEndpoint {
  /** `<baseUrl>/chat/completions`. */
  readonly url: URL;
  /** What every call sends besides `content-length`: the key, JSON both ways, who calls. */
  readonly headers: Readonly<Record<string, string>>;
  readonly http: ProviderHttp;
}

/** What an HTTP header value may hold (`node:http` refuses anything else when sending). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Sent as `user-agent`: some providers' front doors refuse requests without one. */
const USER_AGENT = 'agent-teams';

/**
 * One {@link ModelEndpoint} per base URL and key, made on first use, all sharing one pool of
 * keep-alive connections per process part that owns this.
 */
export class ModelClients {
  readonly #cache = new Map<string, ModelEndpoint>();
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #http = new ProviderHttp();

  /** @param env where `apiKeyEnv` names are looked up. */
  constructor(env: Readonly<Record<string, string | undefined>>) {
    this.#env = env;
  }

  /** The endpoint for `settings`' base URL and key; throws `ModelCallError('access')` when the key variable is unset. */
  endpoint(settings: OpenAiSettings): ModelEndpoint {
    // Trimmed as fetch trimmed header values: a key read from a file often ends with a newline.
    const apiKey = settings.apiKeyEnv === null ? 'not-needed' : this.#env[settings.apiKeyEnv]?.trim();
    if (apiKey === undefined || apiKey === '') {
      const unset = `The environment variable ${settings.apiKeyEnv} holding the API key is not set.`;
      throw new ModelCallError('access', unset);
    }
    if (!HEADER_VALUE.test(apiKey)) {
      // Never the key itself in the message: it goes to the job and the log.
      const bad = `The environment variable ${settings.apiKeyEnv} holds an API key with characters an HTTP header cannot carry (control characters or characters beyond Latin-1).`;
      throw new ModelCallError('access', bad);
    }
    const cacheKey = `${settings.baseUrl}\n${apiKey}`;
    let endpoint = this.#cache.get(cacheKey);
    if (!endpoint) {
      endpoint = {
        // The base URL's trailing slashes do not double (the `openai` client kept one extra).
        url: new URL(`${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`),
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': USER_AGENT,
        },
        http: this.#http,
      };
      this.#cache.set(cacheKey, endpoint);
    }
    return endpoint;
  }

  /** Closes the idle provider connections (a stopping server). */
  close(): void {
    this.#http.close();
  }
}
