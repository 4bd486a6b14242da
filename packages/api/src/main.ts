import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createCore, type EventSink, type Logger, type MemberToolPort, type TeamEvent } from '@agent-teams/core';
import { createConfigCatalog } from './adapters/config-catalog.js';
import { createMemberRunTokens } from './adapters/member-run-tokens.js';
import { createRandomIds } from './adapters/random-ids.js';
import { createRuntimeRegistry } from './adapters/runtime-registry.js';
import { createSystemClock } from './adapters/system-clock.js';
import { createTokenAuth } from './adapters/token-auth.js';
import type { ServeOptions } from './cli-options.js';
import { type ClusterChanges, createClusterChanges } from './cluster/create-cluster-changes.js';
import { loadConfig } from './config/load-config.js';
import { createEventHub } from './events/event-hub.js';
import { OpenAiRuntime } from './runtimes/openai/openai-runtime.js';
import { ScriptedRuntime } from './runtimes/scripted/scripted-runtime.js';
import { createScheduler } from './scheduler/create-scheduler.js';
import { resumeCreatingTeams } from './scheduler/resume-creations.js';
import { createServer } from './server/create-server.js';
import { type WidgetBundle, widgetDemoPage } from './server/widget-assets.js';
import { KyselyTeamStore } from './storage/kysely-team-store.js';
import { migrateToLatest } from './storage/migrate.js';
import { openDatabase } from './storage/open-database.js';

/** A started server: where it listens and how to stop it. */
export interface RunningServer {
  readonly url: string;
  readonly devToken: string | null;
  /** Stops admitting, lets in-flight writes finish, closes sockets and the database. */
  close(): Promise<void>;
}

/** Sends committed events to several listeners; one failing listener never blocks the others. */
function fanOut(sinks: readonly EventSink[], logger: Logger): EventSink {
  return {
    published(events: readonly TeamEvent[]) {
      for (const sink of sinks) {
        try {
          sink.published(events);
        } catch (error) {
          logger.error('event listener failed', { error });
        }
      }
    },
  };
}

/**
 * The built widget (`packages/widget/dist/widget.js`, made by `pnpm --filter @agent-teams/widget
 * build`) and the demo page embedding it; without a build, the plain home page stays at `/`.
 */
function widgetAssets(devToken: string | null, logger: Logger): { widgetBundle?: WidgetBundle; pageHtml?: string } {
  const file = fileURLToPath(new URL('../../widget/dist/widget.js', import.meta.url));
  if (!existsSync(file)) {
    logger.info('widget bundle not built; serving the plain home page', { file });
    return {};
  }
  return { widgetBundle: { script: readFileSync(file, 'utf8') }, pageHtml: widgetDemoPage(devToken) };
}

/**
 * The composition root: the one place that reads configuration, opens the database, picks the
 * real clock and starts listening. Everything else is built from what it is given.
 */
export async function startAgentTeams(
  options: ServeOptions,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<RunningServer> {
  const { config, devToken } = await loadConfig(options.config, { host: options.host, env });
  const clock = createSystemClock();
  const ids = createRandomIds();
  // This process's identity among the servers sharing a database: its leases and its wake-ups.
  const serverId = `srv_${randomBytes(8).toString('hex')}`;
  const catalog = createConfigCatalog(config.agents);
  const database = await openDatabase(options.database);
  let cluster: ClusterChanges | null = null;
  try {
    await migrateToLatest(database.db, database.dialect);
    const hub = createEventHub();
    // Filled in once the scheduler and the cluster feed exist; the store is built before them.
    let sinks: readonly EventSink[] = [hub];
    const store = new KyselyTeamStore(database.db, database.dialect, {
      ids,
      events: { published: (events) => fanOut(sinks, logger).published(events) },
    });
    const scripted = new ScriptedRuntime({ db: database.db, store, clock, logger });
    const openai = new OpenAiRuntime({ db: database.db, dialect: database.dialect, clock, logger, env });
    const runtimes = createRuntimeRegistry([scripted, openai]);
    const memberRunTokens = createMemberRunTokens(database.db, clock);
    const core = createCore({ store, catalog, runtimes, clock, ids, logger });
    const scheduler = createScheduler({
      store,
      runtimes,
      catalog,
      clock,
      ids,
      logger,
      // The member tools bound to the job being run; outside agents get a member-run token instead.
      tools: (job): MemberToolPort => ({
        ...core.tools.forJob(job.id),
        issueToken: () => memberRunTokens.issue(job),
      }),
      // Other servers claim the released jobs at once instead of waiting for the leases to expire.
      onLeasesReleased: () => cluster?.announce(),
      options: {
        lease: {
          serverId,
          host: hostname(),
          ttlMs: options.leaseTtlMs,
          heartbeatMs: options.heartbeatMs,
          exclusive: database.dialect === 'sqlite',
        },
      },
    });
    const local = fanOut([hub, scheduler.eventSink], logger);
    sinks = [local];
    if (database.dialect === 'postgres') {
      // Other servers' commits reach the team feeds and inboxes like local ones.
      cluster = createClusterChanges({
        connectionString: options.database,
        db: database.db,
        serverId,
        logger,
        clock,
        // Other servers' events: the same listeners, but the scheduler only steps the jobs it holds.
        target: fanOut([hub, scheduler.remoteSink], logger),
        onWake: () => scheduler.nudge(),
        pollMs: options.eventPollMs,
      });
      sinks = [local, cluster.localSink];
    }
    const server = createServer({
      core,
      authenticate: createTokenAuth(config.tokens),
      memberRunTokens,
      eventHub: hub,
      progress: (listener) => {
        const unsubscribers = runtimes.all().map((runtime) =>
          runtime.subscribe((notice) => {
            if (notice.type !== 'progress') return;
            const { progress } = notice;
            listener(
              progress.type === 'text'
                ? { jobId: progress.jobId, textDelta: progress.delta }
                : { jobId: progress.jobId, toolCall: progress.name },
            );
          }),
        );
        return () => {
          for (const unsubscribe of unsubscribers) unsubscribe();
        };
      },
      logger,
      live: { allowedOrigins: options.allowedOrigins },
      devToken: devToken ?? undefined,
      ...widgetAssets(devToken, logger),
    });
    await cluster?.start();
    await scheduler.start();
    // Creations interrupted by a stop finish in the background (logged, never thrown).
    void resumeCreatingTeams({ store, core, logger });
    const { url } = await server.listen(options.port, options.host);
    let closing: Promise<void> | null = null;
    return {
      url,
      devToken,
      close: () => {
        closing ??= (async () => {
          await scheduler.stop();
          await cluster?.stop();
          scripted.dispose();
          openai.dispose();
          await server.close();
          await store.close();
          await database.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await cluster?.stop();
    await database.close();
    throw error;
  }
}
