import { type App, createApp, defaultRuntimes } from '@agent-teams/api';
import type { AgentDefinition, Logger } from '@agent-teams/core';
import { type AgentSpec, StaticCatalog } from '../fakes/static-catalog.js';

/** The owner and bearer token every test server knows, unless {@link TestServerOptions} says otherwise. */
export const TEST_SERVER_OWNER = { owner: 'test-owner', token: 'test-token' } as const;

/** What {@link startTestServer} may change; everything else is what `agent-teams serve` runs. */
export interface TestServerOptions {
  /**
   * The agents members may use (default: the demo agents `researcher`, `reviewer`, `writer` on
   * the `scripted` runtime). A spec without `runtime` is scripted; `openai` agents reach the
   * provider at their `settings.baseUrl` (point it at `@agent-teams/testkit/msw`'s fake).
   */
  readonly agents?: readonly (AgentDefinition | AgentSpec)[];
  /** More owners: bearer token → owner id, as `auth.tokens` in the configuration file. */
  readonly tokens?: Readonly<Record<string, string>>;
  /** The owner of the returned `token` (default `test-owner`). */
  readonly owner?: string;
  /** The returned bearer token (default `test-token`). */
  readonly token?: string;
  /** Where `openai` agents look up `apiKeyEnv` (default: the process environment). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Receives the server's log lines (default: silent). */
  readonly logger?: Logger;
}

/** A running test server. */
export interface TestServer {
  /** The base URL, `http://127.0.0.1:<port>`; GraphQL is at `${url}/graphql`. */
  readonly url: string;
  /** The GraphQL WebSocket URL (`graphql-transport-ws`), `ws://127.0.0.1:<port>/graphql`. */
  readonly wsUrl: string;
  /** A bearer token of {@link owner}. */
  readonly token: string;
  readonly owner: string;
  /** The application, for tests that look inside (its core, store, scheduler). */
  readonly app: App;
  /** Stops the server: sockets, scheduler, runtimes and the in-memory database. */
  close(): Promise<void>;
}

/**
 * Starts the real Agent Teams server in this process on a free loopback port, over SQLite in
 * memory, with the scripted agents (or `options.agents`), for a host's integration tests.
 *
 * @remarks Built by `createApp`, the same composition root `agent-teams serve` uses, with the
 * default runtimes (`scripted`, `openai`, `a2a`); only the database, the catalog and the tokens
 * are the test's. Nothing is written to disk. Call `close()` in `afterAll`.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const owner = options.owner ?? TEST_SERVER_OWNER.owner;
  const token = options.token ?? TEST_SERVER_OWNER.token;
  const tokens = new Map(Object.entries(options.tokens ?? {}));
  if (tokens.has(token) && tokens.get(token) !== owner) {
    throw new TypeError(`[agent-teams/testkit] startTestServer: token "${token}" is given to two owners`);
  }
  tokens.set(token, owner);
  const app = await createApp({
    database: ':memory:',
    catalog: new StaticCatalog(options.agents),
    tokens,
    runtimes: defaultRuntimes,
    ...(options.env ? { env: options.env } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  try {
    const { url } = await app.listen(0, '127.0.0.1');
    return { url, wsUrl: `${url.replace(/^http/, 'ws')}/graphql`, token, owner, app, close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  }
}
