import { hostname } from 'node:os';
import { type Core, createCore, type EventSink, type JobId, type Logger, type TeamEvent } from '@agent-teams/core';
import { createConfigCatalog } from '../../src/adapters/config-catalog.js';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import { createRuntimeRegistry } from '../../src/adapters/runtime-registry.js';
import { createSystemClock } from '../../src/adapters/system-clock.js';
import { createUnavailableTools } from '../../src/adapters/unavailable-tools.js';
import { type ClusterChanges, createClusterChanges } from '../../src/cluster/create-cluster-changes.js';
import { createEventHub, type EventHub } from '../../src/events/event-hub.js';
import { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import { createScheduler, type Scheduler } from '../../src/scheduler/create-scheduler.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { BENCH_AGENTS } from './bench-stack.js';
import { watchStarts } from './start-watch.js';

/** The bearer token of owner `bench-owner-0` on the benchmark servers that listen for HTTP. */
export const CLUSTER_BENCH_TOKEN = 'tok-cluster-bench';

/** How a server of a benchmark cluster follows the others (PostgreSQL only). */
export interface ClusterFeedOptions {
  /** The `postgres://` URL (LISTEN and NOTIFY use connections of their own). */
  readonly connectionString: string;
  /** LISTEN/NOTIFY wake-ups on (the default of `serve`) or polling alone. */
  readonly notify: boolean;
  /** `--event-poll` (10..250 ms). */
  readonly pollMs: number;
}

/** Options of {@link openClusterStack}. */
export interface ClusterStackOptions {
  /** This server incarnation's id (`--lease-*` defaults of `serve`: 15 s TTL, 5 s heartbeat). */
  readonly serverId: string;
  /** Null: a single server without the change feed (SQLite, or PostgreSQL alone). */
  readonly cluster: ClusterFeedOptions | null;
  /** Called when the runtime's `start` is entered. */
  readonly onStart?: (jobId: JobId) => void;
  /** Called after every local commit that published events, before the fan-out. */
  readonly onEvents?: (events: readonly TeamEvent[]) => void;
}

/** One server of a benchmark cluster: the wiring of `main.ts` without the HTTP layer. */
export interface ClusterStack {
  readonly database: OpenedDatabase;
  readonly store: KyselyTeamStore;
  readonly core: Core;
  readonly scheduler: Scheduler;
  /** The hub the GraphQL subscriptions of a `createServer` on this stack listen to. */
  readonly hub: EventHub;
  /** The change feed, when the stack follows other servers. */
  readonly cluster: ClusterChanges | null;
  /** Starts the change feed, then the scheduler (as `startAgentTeams` does). */
  start(): Promise<void>;
  /** Stops the scheduler (releasing its leases), the feed and the runtime; closes the database. */
  close(): Promise<void>;
}

const silent: Logger = {
  info: () => {},
  warn: (message, fields) => console.error(`[agent-teams/bench] ${message}`, fields ?? ''),
  error: (message, fields) => console.error(`[agent-teams/bench] ${message}`, fields ?? ''),
};

/** Sends a batch to every sink; one failing sink never blocks the others (as in `main.ts`). */
function fanOut(sinks: () => readonly EventSink[]): EventSink {
  return {
    published(events) {
      for (const sink of sinks()) {
        try {
          sink.published(events);
        } catch (error) {
          silent.error('event listener failed', { error });
        }
      }
    },
  };
}

/**
 * Builds store, scripted runtime, core, scheduler with this server's lease and, on PostgreSQL,
 * the cross-server change feed, exactly as `startAgentTeams` wires them (other servers' events
 * reach the hub and wake the scheduler; releasing leases announces it). Does not migrate.
 */
export function openClusterStack(database: OpenedDatabase, opts: ClusterStackOptions): ClusterStack {
  const clock = createSystemClock();
  const ids = createRandomIds();
  const hub = createEventHub();
  let sinks: readonly EventSink[] = [hub];
  const onEvents = opts.onEvents;
  const store = new KyselyTeamStore(database.db, database.dialect, {
    ids,
    events: {
      published(events) {
        onEvents?.(events);
        fanOut(() => sinks).published(events);
      },
    },
  });
  const runtime = new ScriptedRuntime({ db: database.db, store, clock, logger: silent });
  const seen = watchStarts(runtime, opts.onStart);
  const runtimes = createRuntimeRegistry([seen]);
  const catalog = createConfigCatalog(BENCH_AGENTS);
  const core = createCore({ store, catalog, runtimes, clock, ids, logger: silent });
  let cluster: ClusterChanges | null = null;
  const scheduler = createScheduler({
    store,
    runtimes,
    catalog,
    clock,
    ids,
    logger: silent,
    tools: () => createUnavailableTools(),
    onLeasesReleased: () => cluster?.announce(),
    options: {
      lease: {
        serverId: opts.serverId,
        host: hostname(),
        ttlMs: 15_000,
        heartbeatMs: 5_000,
        exclusive: database.dialect === 'sqlite',
      },
    },
  });
  const local = fanOut(() => [hub, scheduler.eventSink]);
  sinks = [local];
  if (opts.cluster !== null && database.dialect === 'postgres') {
    cluster = createClusterChanges({
      connectionString: opts.cluster.connectionString,
      db: database.db,
      serverId: opts.serverId,
      logger: silent,
      clock,
      target: fanOut(() => [hub, scheduler.remoteSink]),
      onWake: () => scheduler.nudge(),
      pollMs: opts.cluster.pollMs,
      notify: opts.cluster.notify,
    });
    sinks = [local, cluster.localSink];
  }
  return {
    database,
    store,
    core,
    scheduler,
    hub,
    cluster,
    async start() {
      await cluster?.start();
      await scheduler.start();
    },
    async close() {
      await scheduler.stop();
      await cluster?.stop();
      runtime.dispose();
      await database.close();
    },
  };
}
