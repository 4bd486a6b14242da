import type { JobId, Logger, TeamEvent } from '@agent-teams/core';
import { createConfigCatalog } from '../../src/adapters/config-catalog.js';
import { type App, createApp } from '../../src/app/create-app.js';
import { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { BENCH_AGENTS } from './bench-stack.js';
import { watchStarts } from './start-watch.js';

/** The bearer token of owner `bench-owner-0` on the benchmark servers that listen for HTTP. */
export const CLUSTER_BENCH_TOKEN = 'tok-cluster-bench';

/** How a server of a benchmark cluster follows the others (PostgreSQL only). */
export interface ClusterFeedOptions {
  /** LISTEN/NOTIFY wake-ups on (the default of `serve`) or polling alone. */
  readonly notify: boolean;
  /** `--event-poll` (10..250 ms). */
  readonly pollMs: number;
}

/** Options of {@link openClusterApp}. */
export interface ClusterAppOptions {
  /** This server incarnation's id (`--lease-*` defaults of `serve`: 15 s TTL, 5 s heartbeat). */
  readonly serverId: string;
  /** Null: a single server without the change feed (SQLite, or PostgreSQL alone). */
  readonly cluster: ClusterFeedOptions | null;
  /** Called when the runtime's `start` is entered. */
  readonly onStart?: (jobId: JobId) => void;
  /** Called after every local commit that published events, before the fan-out. */
  readonly onEvents?: (events: readonly TeamEvent[]) => void;
}

const logger: Logger = {
  info: () => {},
  warn: (message, fields) => console.error(`[agent-teams/bench] ${message}`, fields ?? ''),
  error: (message, fields) => console.error(`[agent-teams/bench] ${message}`, fields ?? ''),
};

/**
 * One server of a benchmark cluster, built by `createApp` as `serve` builds it: this server's
 * lease and, on PostgreSQL, the cross-server change feed; {@link CLUSTER_BENCH_TOKEN} for HTTP.
 */
export function openClusterApp(database: OpenedDatabase, opts: ClusterAppOptions): Promise<App> {
  const onEvents = opts.onEvents;
  return createApp({
    database,
    catalog: createConfigCatalog(BENCH_AGENTS),
    tokens: new Map([[CLUSTER_BENCH_TOKEN, 'bench-owner-0']]),
    logger,
    lease: { serverId: opts.serverId },
    cluster: opts.cluster ?? false,
    // One owner drives every request: the benchmarks measure dispatch, not the limiter.
    http: { rateLimit: null },
    ...(onEvents ? { events: { published: onEvents } } : {}),
    runtimes: ({ clock, rides }) => {
      const scripted = new ScriptedRuntime({ db: database.db, dialect: database.dialect, clock, logger, rides });
      return [watchStarts(scripted, opts.onStart)];
    },
  });
}
