import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Logger } from '@agent-teams/core';
import { createConfigCatalog } from './adapters/config-catalog.js';
import { createApp } from './app/create-app.js';
import type { ServeOptions } from './cli-options.js';
import { httpSettings } from './config/http-settings.js';
import { loadConfig } from './config/load-config.js';
import { urlForDisplay } from './database-display.js';
import { packageVersion } from './package-version.js';
import { WIDGET_CHUNK, type WidgetBundle, widgetDemoPage } from './server/widget-assets.js';

/** A started server: where it listens and how to stop it. */
export interface RunningServer {
  readonly url: string;
  readonly devToken: string | null;
  /** Stops admitting, lets in-flight writes finish, closes sockets and the database. */
  close(): Promise<void>;
}

/**
 * Where the installed `@agent-teams/widget` keeps its bundle, resolved through the package (so an
 * npm install serves its own copy), or null when it is not built (a workspace before `pnpm build`).
 */
function widgetBundleFile(): string | null {
  try {
    return createRequire(import.meta.url).resolve('@agent-teams/widget/widget.js');
  } catch {
    return null;
  }
}

/**
 * The built widget (`widget.js` of `@agent-teams/widget` and its on-demand chunks, made by
 * `pnpm --filter @agent-teams/widget build`) and the demo page embedding it; without a build, the
 * plain home page stays at `/`.
 */
function widgetAssets(
  tokenHint: string | undefined,
  logger: Logger,
): { widgetBundle?: WidgetBundle; pageHtml?: string } {
  const file = widgetBundleFile();
  if (file === null) {
    logger.info('widget bundle not built; serving the plain home page', { package: '@agent-teams/widget' });
    return {};
  }
  const dir = dirname(file);
  const chunks = new Map(
    readdirSync(dir)
      .filter((name) => WIDGET_CHUNK.test(name))
      .map((name) => [name, readFileSync(join(dir, name), 'utf8')] as const),
  );
  return { widgetBundle: { script: readFileSync(file, 'utf8'), chunks }, pageHtml: widgetDemoPage(tokenHint ?? null) };
}

/**
 * Starts the server `agent-teams serve` runs: reads the configuration, builds the application
 * (`createApp`, the composition root) over the real clock, ids and database, and listens.
 */
export async function startAgentTeams(
  options: ServeOptions,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<RunningServer> {
  const { config, devToken, jwt } = await loadConfig(options.config, { host: options.host, env });
  // The OpenTelemetry SDK is loaded only when traces have somewhere to go (start-up time).
  const tracing = options.otlpEndpoint
    ? (await import('./observability/tracing.js')).startTracing(options.otlpEndpoint, packageVersion())
    : null;
  if (options.otlpEndpoint) logger.info('sending traces', { endpoint: urlForDisplay(options.otlpEndpoint) });
  const http = httpSettings(options, config, devToken);
  const app = await createApp({
    database: options.database,
    databaseOptions: {
      sqliteSynchronous: options.sqliteSynchronous,
      postgresPrepared: options.pgPreparedStatements,
      postgresPipeline: options.pgPipeline,
    },
    catalog: createConfigCatalog(config.agents),
    tokens: config.tokens,
    jwt,
    logger,
    env,
    lease: { ttlMs: options.leaseTtlMs, heartbeatMs: options.heartbeatMs },
    cluster: { pollMs: options.eventPollMs },
    ...(config.admission ? { scheduler: { admission: config.admission } } : {}),
    ...(config.budgets ? { budgets: config.budgets } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    http: {
      live: { allowedOrigins: options.allowedOrigins },
      ...http,
      ...widgetAssets(http.tokenHint, logger),
    },
  });
  try {
    const { url } = await app.listen(options.port, options.host);
    return {
      url,
      devToken,
      close: async () => {
        await app.close();
        await tracing?.shutdown();
      },
    };
  } catch (error) {
    await app.close();
    await tracing?.shutdown();
    throw error;
  }
}
