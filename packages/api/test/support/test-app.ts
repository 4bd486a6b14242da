import type { AgentRuntime } from '@agent-teams/core';
import { MemoryLogger, SequentialIds, StaticCatalog } from '@agent-teams/testkit';
import { type App, type AppOptions, type AppRuntime, createApp, type RuntimeParts } from '../../src/app/create-app.js';
import { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';

/** The owner bearer tokens every test application knows. */
export const TOKENS = { alice: 'tok-alice', bob: 'tok-bob' } as const;

/** {@link TOKENS} as the token → owner map `createApp` takes. */
export function ownerTokens(): Map<string, string> {
  return new Map(Object.entries(TOKENS).map(([owner, token]) => [token, owner]));
}

/** Options of {@link openTestApp}: any `createApp` option, with test defaults for the rest. */
export type TestAppOptions = Partial<AppOptions> & {
  /** Wraps the scripted runtime (fault injection); its `dispose` is kept. */
  readonly wrapRuntime?: (runtime: ScriptedRuntime) => AgentRuntime;
  /** Told the scripted runtime the application runs. */
  readonly onRuntime?: (runtime: ScriptedRuntime) => void;
  /** More runtimes beside the scripted one (e.g. `a2a`), built over the application's parts. */
  readonly moreRuntimes?: (parts: RuntimeParts) => readonly AppRuntime[];
  /** False leaves the application unstarted (default: started). */
  readonly start?: boolean;
};

/**
 * The application as production builds it (`createApp`), with test defaults: SQLite in memory,
 * sequential ids, the demo agents, {@link TOKENS}, a recording logger, the scripted runtime
 * streaming every 5 ms and no rate limit (tests drive one owner as fast as they can; the
 * limiter's own tests turn it on). Started unless `start: false`.
 */
export async function openTestApp(options: TestAppOptions = {}): Promise<App & { readonly logger: MemoryLogger }> {
  const { wrapRuntime, onRuntime, moreRuntimes, start, ...rest } = options;
  const logger = rest.logger instanceof MemoryLogger ? rest.logger : new MemoryLogger();
  const app = await createApp({
    database: ':memory:',
    catalog: new StaticCatalog(),
    tokens: ownerTokens(),
    ids: new SequentialIds(),
    runtimes: (parts) => {
      const { database, clock, rides } = parts;
      if (database === null) throw new Error('the scripted test runtime needs a database');
      const runtime = new ScriptedRuntime({
        db: database.db,
        dialect: database.dialect,
        clock,
        logger,
        streamIntervalMs: 5,
        rides,
      });
      onRuntime?.(runtime);
      return [wrapRuntime ? keepDispose(wrapRuntime(runtime), runtime) : runtime, ...(moreRuntimes?.(parts) ?? [])];
    },
    ...rest,
    http: { rateLimit: null, ...rest.http },
    logger,
  });
  if (start !== false) await app.start();
  return Object.assign(app, { logger });
}

/** A wrapped runtime that still stops the inner one's executions when the application closes. */
function keepDispose(wrapped: AgentRuntime, inner: ScriptedRuntime): AppRuntime {
  return wrapped === inner ? inner : Object.assign(wrapped, { dispose: () => inner.dispose() });
}

/** A GraphQL answer as the tests read it. */
export interface GqlResponse {
  readonly status: number;
  readonly data: Record<string, unknown> | null;
  readonly errors: readonly {
    message: string;
    path?: readonly (string | number)[];
    extensions?: Record<string, unknown>;
  }[];
}

/** Runs operations over `yoga.fetch` (no socket); `token: null` sends no Authorization header. */
export function gqlOf(app: App, defaultToken: string = TOKENS.alice) {
  return async (
    query: string,
    variables: Record<string, unknown> = {},
    token: string | null = defaultToken,
  ): Promise<GqlResponse> => {
    const response = await app.server.yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: Record<string, unknown> | null; errors?: GqlResponse['errors'] };
    return { status: response.status, data: body.data ?? null, errors: body.errors ?? [] };
  };
}

/** Waits until `check` answers a value other than undefined, null or false, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
