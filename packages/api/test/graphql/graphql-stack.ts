import type { Clock, Core, IdGenerator } from '@agent-teams/core';
import type { MemoryLogger } from '@agent-teams/testkit';
import type { App } from '../../src/app/create-app.js';
import type { JobProgressNotice } from '../../src/events/progress-hub.js';
import type { SchedulerOptions } from '../../src/scheduler/create-scheduler.js';
import type { LiveOptions } from '../../src/server/live/live-options.js';
import type { RateLimitOptions } from '../../src/server/rate-limiter.js';
import { eventually, type GqlResponse, gqlOf, openTestApp, TOKENS } from '../support/test-app.js';

export { type GqlResponse, TOKENS };

/** The application built by `createApp` (SQLite in memory, scripted runtime), with GraphQL helpers. */
export interface GraphqlStack {
  readonly app: App;
  readonly server: App['server'];
  readonly core: Core;
  readonly logger: MemoryLogger;
  /** Every progress notice the application published, oldest first. */
  readonly progressLog: readonly JobProgressNotice[];
  /** Runs an operation over `yoga.fetch`; `token: null` sends no Authorization header. */
  gql(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<GqlResponse>;
  /** Event-hub listeners registered now (subscriptions and team feeds). */
  hubListeners(): number;
  /** Resolves once `inbox` event listeners and `progress` progress subscriptions are registered. */
  waitForListeners(counts: { inbox?: number; progress?: number }): Promise<void>;
  /** Polls `job(id)` until its status is one of `statuses`; returns the job's fields. */
  waitForJob(jobId: string, statuses: readonly string[], token?: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Builds the application one test file uses. `scheduler: false` leaves requests QUEUED forever,
 * which is how tests hold a job in that state.
 */
export async function createGraphqlStack(
  opts: {
    scheduler?: boolean;
    /** Scheduler tunables (e.g. a long safety net, so that only a timer ends a wait on time). */
    schedulerOptions?: Omit<SchedulerOptions, 'lease'>;
    /** Wraps the core the resolvers call (failure injection at the edge). */
    core?: (core: Core) => Core;
    /** Where GraphiQL and the home page say the development token was printed. */
    tokenHint?: string;
    pageHtml?: string;
    /**
     * The per-owner rate limit; default off, because tests poll as fast as they can. The
     * limiter's own tests set it (with `rateClock` to step time by hand).
     */
    rateLimit?: RateLimitOptions | null;
    rateClock?: Clock;
    /** Largest request body (default 1 MiB). */
    maxBodyBytes?: number;
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
  const app = await openTestApp({
    ...(opts.database ? { database: opts.database } : {}),
    ...(opts.tokens ? { tokens: opts.tokens } : {}),
    ...(opts.ids ? { ids: opts.ids } : {}),
    ...(opts.scheduler === false
      ? { scheduler: false }
      : opts.schedulerOptions
        ? { scheduler: opts.schedulerOptions }
        : {}),
    http: {
      ...(opts.core ? { core: opts.core } : {}),
      ...(opts.live ? { live: opts.live } : {}),
      ...(opts.tokenHint ? { tokenHint: opts.tokenHint } : {}),
      ...(opts.pageHtml ? { pageHtml: opts.pageHtml } : {}),
      rateLimit: opts.rateLimit ?? null,
      ...(opts.rateClock ? { clock: opts.rateClock } : {}),
      ...(opts.maxBodyBytes ? { maxBodyBytes: opts.maxBodyBytes } : {}),
    },
  });
  const progressLog: JobProgressNotice[] = [];
  app.progress.listen((notice) => progressLog.push(notice));
  // The log above is a listener too: subscriptions are counted beyond it.
  const ownListeners = app.progress.listening;
  const gql = gqlOf(app);
  return {
    app,
    server: app.server,
    core: app.core,
    logger: app.logger,
    progressLog,
    gql,
    hubListeners: () => app.events.listening,
    async waitForListeners(counts) {
      await eventually(
        () =>
          app.events.listening >= (counts.inbox ?? 0) &&
          app.progress.listening - ownListeners >= (counts.progress ?? 0),
        'subscription listeners',
        5_000,
      );
    },
    async waitForJob(jobId, statuses, token = TOKENS.alice) {
      let last: unknown = null;
      try {
        return await eventually(
          async () => {
            const { data } = await gql(
              'query($id: ID!) { job(id: $id) { id status result { available text } error } }',
              { id: jobId },
              token,
            );
            const job = data?.job as Record<string, unknown> | null;
            last = job;
            return job && statuses.includes(String(job.status)) ? job : undefined;
          },
          `job ${jobId} in ${statuses.join('/')}`,
          10_000,
        );
      } catch (error) {
        throw new Error(`${(error as Error).message}; last seen: ${JSON.stringify(last)}`);
      }
    },
    close: () => app.close(),
  };
}

/** The `extensions.code` of every error of a response. */
export function codes(response: GqlResponse): readonly unknown[] {
  return response.errors.map((error) => error.extensions?.code);
}
