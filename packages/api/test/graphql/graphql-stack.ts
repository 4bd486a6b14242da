import { type Core, createCore, type EventSink, type IdGenerator, type JobId } from '@agent-teams/core';
import { MemoryLogger, SequentialIds, StaticCatalog } from '@agent-teams/testkit';
import { createRuntimeRegistry } from '../../src/adapters/runtime-registry.js';
import { createSystemClock } from '../../src/adapters/system-clock.js';
import { createTokenAuth } from '../../src/adapters/token-auth.js';
import { createUnavailableTools } from '../../src/adapters/unavailable-tools.js';
import { createEventHub, type EventHub } from '../../src/events/event-hub.js';
import type { JobProgressNotice } from '../../src/events/progress-source.js';
import { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import { createScheduler, type Scheduler } from '../../src/scheduler/create-scheduler.js';
import { type AgentTeamsServer, createServer } from '../../src/server/create-server.js';
import type { LiveOptions } from '../../src/server/live/live-options.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';

/** The bearer tokens every stack knows. */
export const TOKENS = { alice: 'tok-alice', bob: 'tok-bob' } as const;

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

/** A real stack: SQLite in memory, the core, the scripted runtime, the scheduler and the server. */
export interface GraphqlStack {
  readonly server: AgentTeamsServer;
  readonly core: Core;
  readonly logger: MemoryLogger;
  readonly scheduler: Scheduler | null;
  /** Every progress notice the scheduler reported, oldest first. */
  readonly progressLog: readonly JobProgressNotice[];
  /** Runs an operation over `yoga.fetch`; `token: null` sends no Authorization header. */
  gql(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<GqlResponse>;
  /** Resolves once `count` inbox listeners and `progress` progress listeners are registered. */
  waitForListeners(counts: { inbox?: number; progress?: number }): Promise<void>;
  /** Polls `job(id)` until its status is one of `statuses`; returns the job's fields. */
  waitForJob(jobId: string, statuses: readonly string[], token?: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Builds the stack one test file uses. `scheduler: false` leaves requests QUEUED forever, which
 * is how tests hold a job in that state.
 */
export async function createGraphqlStack(
  opts: {
    scheduler?: boolean;
    core?: (core: Core) => Core;
    devToken?: string;
    pageHtml?: string;
    /** SQLite file (default `:memory:`), e.g. to restart a server on the same file. */
    database?: string;
    /** token → owner; a test may delete entries to revoke a token. Default: {@link TOKENS}. */
    tokens?: Map<string, string>;
    /** Limits of the live endpoint. */
    live?: Partial<LiveOptions>;
    /** Id generator (default sequential); a restart on the same file needs fresh ids. */
    ids?: IdGenerator;
  } = {},
): Promise<GraphqlStack> {
  const logger = new MemoryLogger();
  const clock = createSystemClock();
  const ids = opts.ids ?? new SequentialIds();
  const catalog = new StaticCatalog();
  const database = await openDatabase(opts.database ?? ':memory:');
  await migrateToLatest(database.db, database.dialect);
  const baseHub = createEventHub();
  let inboxListeners = 0;
  // Counts live listeners so subscription tests can wait until a subscription is really set up.
  const hub: EventHub = {
    ...baseHub,
    listen(listener) {
      inboxListeners += 1;
      const unlisten = baseHub.listen(listener);
      return () => {
        inboxListeners -= 1;
        unlisten();
      };
    },
  };
  const sinks: EventSink[] = [hub];
  const store = new KyselyTeamStore(database.db, database.dialect, {
    ids,
    events: {
      published: (events) => {
        for (const sink of sinks) sink.published(events);
      },
    },
  });
  const scripted = new ScriptedRuntime({ db: database.db, store, clock, logger, streamIntervalMs: 5 });
  const runtimes = createRuntimeRegistry([scripted]);
  const realCore = createCore({ store, catalog, runtimes, clock, ids, logger });
  const core = opts.core ? opts.core(realCore) : realCore;
  const progressListeners = new Set<(notice: JobProgressNotice) => void>();
  const progressLog: JobProgressNotice[] = [];
  const scheduler =
    opts.scheduler === false
      ? null
      : createScheduler({
          store,
          runtimes,
          catalog,
          clock,
          ids,
          logger,
          tools: () => createUnavailableTools(),
          onProgress: ({ job, progress }) => {
            const notice: JobProgressNotice =
              progress.type === 'text'
                ? { jobId: job.id as JobId, textDelta: progress.delta }
                : { jobId: job.id as JobId, toolCall: progress.name };
            progressLog.push(notice);
            for (const listener of progressListeners) listener(notice);
          },
        });
  if (scheduler) sinks.push(scheduler.eventSink);
  const server = createServer({
    core,
    authenticate: createTokenAuth(
      opts.tokens ?? new Map(Object.entries(TOKENS).map(([owner, token]) => [token, owner])),
    ),
    ...(opts.live ? { live: opts.live } : {}),
    eventHub: hub,
    progress: (listener) => {
      progressListeners.add(listener);
      return () => progressListeners.delete(listener);
    },
    logger,
    ...(opts.devToken ? { devToken: opts.devToken } : {}),
    ...(opts.pageHtml ? { pageHtml: opts.pageHtml } : {}),
  });
  await scheduler?.start();

  const gql: GraphqlStack['gql'] = async (query, variables = {}, token = TOKENS.alice) => {
    const response = await server.yoga.fetch('http://localhost/graphql', {
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

  return {
    server,
    core,
    logger,
    scheduler,
    progressLog,
    gql,
    async waitForListeners(counts) {
      const deadline = Date.now() + 5_000;
      while ((counts.inbox ?? 0) > inboxListeners || (counts.progress ?? 0) > progressListeners.size) {
        if (Date.now() > deadline) throw new Error('subscription listeners never registered');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async waitForJob(jobId, statuses, token = TOKENS.alice) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const { data } = await gql(
          'query($id: ID!) { job(id: $id) { id status result { available text } error } }',
          { id: jobId },
          token,
        );
        const job = data?.job as Record<string, unknown> | null;
        if (job && statuses.includes(String(job.status))) return job;
        if (Date.now() > deadline)
          throw new Error(`job ${jobId} never reached ${statuses.join('/')}: ${JSON.stringify(job)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      await scheduler?.stop();
      await server.close();
      await store.close();
      await database.close();
    },
  };
}

/** The `extensions.code` of every error of a response. */
export function codes(response: GqlResponse): readonly unknown[] {
  return response.errors.map((error) => error.extensions?.code);
}
