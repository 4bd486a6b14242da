import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createCore, type EventSink, type Logger, type MemberToolPort, NO_BUDGET_POLICY } from '@agent-teams/core';
import { createMemberRunTokens } from '../adapters/member-run-tokens.js';
import { createRandomIds } from '../adapters/random-ids.js';
import { createRuntimeRegistry } from '../adapters/runtime-registry.js';
import { createSystemClock } from '../adapters/system-clock.js';
import { createAuthenticator } from '../auth/authenticator.js';
import { type ClusterChanges, createClusterChanges } from '../cluster/create-cluster-changes.js';
import { createEventHub } from '../events/event-hub.js';
import { KnownMembers } from '../events/known-members.js';
import { createProgressHub, type JobProgressNotice, progressNotice } from '../events/progress-hub.js';
import { instrumentRuntime } from '../observability/instrument-runtime.js';
import { createMetrics } from '../observability/metrics.js';
import { checkReadiness } from '../observability/readiness.js';
import { createSpendGuard } from '../runtimes/spend-guard.js';
import { createScheduler } from '../scheduler/create-scheduler.js';
import { type AgentTeamsServer, createServer } from '../server/create-server.js';
import type { EnqueueAdmission } from '../storage/admission-ride.js';
import { releaseAllSpend } from '../storage/budgets.js';
import { KyselyTeamStore } from '../storage/kysely-team-store.js';
import { migrateToLatest } from '../storage/migrate.js';
import { type OpenDatabaseOptions, type OpenedDatabase, openDatabase } from '../storage/open-database.js';
import { openRunRides } from '../storage/open-run-rides.js';
import type { App, AppOptions, RuntimeParts } from './app-options.js';
import { defaultRuntimes } from './default-runtimes.js';
import { fanOut } from './fan-out.js';
import { resumeCreatingTeams } from './resume-creations.js';

export type { App, AppOptions, AppRuntime, RuntimeParts } from './app-options.js';

const SILENT: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * The composition root: builds the application (store, core, runtimes, scheduler, the cluster
 * feed and the HTTP/WebSocket server) from explicit seams. `main.ts`, every test harness, the
 * benchmarks and chaos build it here, replacing only what they must (clock, ids, store, runtimes,
 * event sinks), so what they exercise is the object graph production runs.
 *
 * @remarks Nothing starts until {@link App.start} (or `listen`). The database is migrated here and
 * closed by {@link App.close}.
 */
export async function createApp(options: AppOptions): Promise<App> {
  const database = await openAppDatabase(
    options.database === undefined ? ':memory:' : options.database,
    options.databaseOptions,
  );
  const clock = options.clock ?? createSystemClock();
  const ids = options.ids ?? createRandomIds();
  const logger = options.logger ?? SILENT;
  const serverId = options.lease?.serverId ?? `srv_${randomBytes(8).toString('hex')}`;
  const events = createEventHub();
  const progress = createProgressHub(logger);
  // Filled in below: the store is built before the scheduler and the cluster feed that listen to it.
  let localSinks: readonly EventSink[] = [];
  const localCommits = fanOut(() => localSinks, logger);
  // A run's final write commits with the job write that records the run (decision 0221).
  const rides = database ? openRunRides(database, clock, options.rideWaitMs, logger) : null;
  // Set below once the scheduler exists: its admission rides local enqueues (decision 0223).
  let admission: EnqueueAdmission | null = null;
  const sql = database
    ? new KyselyTeamStore(database.db, database.dialect, {
        ids,
        events: localCommits,
        ...(rides ? { rides } : {}),
        admission: () => admission,
      })
    : null;
  const store = options.store ? options.store(localCommits, sql) : sql;
  if (store === null) throw new TypeError('[agent-teams/api] createApp needs a database or a store');
  // Remote agents reach their team tools at this server's MCP endpoint: known once it listens.
  let listened: (url: string) => void = () => undefined;
  const listening = new Promise<string>((resolve) => {
    listened = resolve;
  });
  const mcpUrl = async () => `${options.publicUrl ?? (await listening)}/mcp`;
  const spend = createSpendGuard({ store, policy: options.budgets ?? NO_BUDGET_POLICY, clock, logger });
  const parts: RuntimeParts = {
    database,
    store,
    clock,
    logger,
    env: options.env ?? process.env,
    mcpUrl,
    spend,
    // Only a store that carries them: the SQL store built here, as it is or wrapped.
    rides: store === sql ? rides : null,
  };
  const metrics = createMetrics(database?.db ?? null, () => clock.nowMs());
  // Counted, timed and traced (observability/): what the scheduler and the core call.
  const runtimes = (options.runtimes ?? defaultRuntimes)(parts).map((runtime) =>
    instrumentRuntime(runtime, metrics, () => clock.nowMs()),
  );
  const registry = createRuntimeRegistry(runtimes);
  const core = createCore({ store, catalog: options.catalog, runtimes: registry, clock, ids, logger });
  const memberRunTokens = database ? createMemberRunTokens(database.db, clock) : null;
  let cluster: ClusterChanges | null = null;
  const scheduler =
    options.scheduler === false
      ? null
      : createScheduler({
          store,
          runtimes: registry,
          catalog: options.catalog,
          clock,
          ids,
          logger,
          // The member tools bound to the job being run; outside agents get a member-run token too.
          tools: (job): MemberToolPort => ({
            ...core.tools.forJob(job.id),
            ...(memberRunTokens ? { issueToken: () => memberRunTokens.issue(job) } : {}),
          }),
          onPass: (full) => metrics.schedulerPasses.inc({ kind: full ? 'admission' : 'claim' }),
          onTakeover: (count) => metrics.jobsTakenOver.inc(count),
          // Other servers claim the released jobs at once instead of waiting for the leases to expire.
          onLeasesReleased: () => cluster?.announce(),
          options: {
            ...options.scheduler,
            lease: {
              serverId,
              host: hostname(),
              ttlMs: options.lease?.ttlMs ?? 15_000,
              heartbeatMs: options.lease?.heartbeatMs ?? 5_000,
              exclusive: database?.dialect === 'sqlite',
            },
          },
        });
  // Only into the SQL store as built here: a wrapping store (a test's) sees every admission.
  if (scheduler !== null && store === sql) admission = scheduler.enqueueAdmission;
  if (database?.dialect === 'postgres' && options.cluster !== false) {
    cluster = createClusterChanges({
      connectionString: database.target,
      db: database.db,
      serverId,
      logger,
      clock,
      // Other servers' events: the same listeners, but the scheduler only steps the jobs it holds.
      target: fanOut(() => [events, metrics.remoteEvents, ...(scheduler ? [scheduler.remoteSink] : [])], logger),
      onWake: () => scheduler?.nudge(),
      onProgress: (notice) => progress.publish(notice),
      ...options.cluster,
    });
  }
  // Alone on its database, every write of a member is a local commit with its rows (decision 0241).
  const knownMembers = database?.dialect === 'sqlite' && store === sql ? new KnownMembers() : null;
  localSinks = [
    ...(options.events ? [options.events] : []),
    ...(knownMembers ? [knownMembers] : []),
    events,
    ...(scheduler ? [scheduler.eventSink] : []),
    ...(cluster ? [cluster.localSink] : []),
  ];
  const localProgress = (notice: JobProgressNotice) => {
    progress.publish(notice);
    cluster?.relayProgress(notice);
  };
  const unsubscribe = runtimes.map((runtime) =>
    runtime.subscribe((notice) => {
      if (notice.type === 'progress') localProgress(progressNotice(notice.progress));
    }),
  );
  let server: AgentTeamsServer | null = null;
  // The scheduler counts as running from its start to its stop; without one (by choice), always.
  let schedulerRunning = scheduler === null;
  const readiness = () => checkReadiness({ database, schedulerRunning: () => schedulerRunning });
  const buildServer = () => {
    const built = createServer({
      core: options.http?.core ? options.http.core(core) : core,
      auth: createAuthenticator({
        tokens: options.tokens ?? new Map(),
        jwt: options.jwt ?? null,
        clock,
        logger,
        ...(options.jwks ? { jwks: options.jwks } : {}),
      }),
      ...(memberRunTokens ? { memberRunTokens } : {}),
      eventHub: events,
      ...(knownMembers ? { knownMembers } : {}),
      progress: progress.listen,
      logger,
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
      ops: { metrics, readiness },
      ...withoutCore(options.http),
    });
    metrics.setLive(() => ({ sockets: built.live.connections, subscriptionGroups: built.live.sharedGroups }));
    return built;
  };
  let starting: Promise<void> | null = null;
  let closing: Promise<void> | null = null;
  const start = () => {
    starting ??= (async () => {
      await cluster?.start();
      await scheduler?.start();
      schedulerRunning = true;
      // Creations interrupted by a stop finish in the background (logged, never thrown).
      void resumeCreatingTeams({ store, core, logger });
    })();
    return starting;
  };
  return {
    core,
    store,
    scheduler,
    runtimes: registry,
    events,
    progress,
    cluster,
    database,
    memberRunTokens,
    serverId,
    get server() {
      server ??= buildServer();
      return server;
    },
    start,
    async listen(port, host) {
      await start();
      server ??= buildServer();
      const address = await server.listen(port, host);
      listened(address.url);
      return address;
    },
    close() {
      closing ??= (async () => {
        await starting?.catch(() => undefined);
        schedulerRunning = false;
        await scheduler?.stop();
        // Ended runs whose final write waited for a job write: committed alone before the close.
        await rides?.flush();
        await cluster?.stop();
        for (const off of unsubscribe) off();
        await Promise.all(runtimes.map((runtime) => runtime.dispose?.()));
        await server?.close();
        rides?.close();
        await database?.close();
      })();
      return closing;
    },
  };
}

/** Opens and migrates the database named by `target` (an opened one is migrated only). */
async function openAppDatabase(
  target: string | OpenedDatabase | null,
  opts: OpenDatabaseOptions | undefined,
): Promise<OpenedDatabase | null> {
  if (target === null) return null;
  const database = typeof target === 'string' ? await openDatabase(target, opts) : target;
  try {
    await migrateToLatest(database.db, database.dialect);
    // A SQLite file this process opened is its alone (the file lock): reservations of model calls
    // in it are of a server that died, whose calls the restarted server sends again.
    if (typeof target === 'string' && database.dialect === 'sqlite') await releaseAllSpend(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

function withoutCore(http: AppOptions['http']): Omit<NonNullable<AppOptions['http']>, 'core'> {
  if (!http) return {};
  const { core: _core, ...rest } = http;
  return rest;
}
