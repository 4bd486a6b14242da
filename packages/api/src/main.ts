import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@agent-teams/core';
import { createConfigCatalog } from './adapters/config-catalog.js';
import { createApp } from './app/create-app.js';
import type { ServeOptions } from './cli-options.js';
import { httpSettings } from './config/http-settings.js';
import { loadConfig } from './config/load-config.js';
import { WIDGET_CHUNK, type WidgetBundle, widgetDemoPage } from './server/widget-assets.js';

/** A started server: where it listens and how to stop it. */
export interface RunningServer {
  readonly url: string;
  readonly devToken: string | null;
  /** Stops admitting, lets in-flight writes finish, closes sockets and the database. */
  close(): Promise<void>;
}

/**
 * The built widget (`packages/widget/dist/widget.js` and its on-demand chunks, made by
 * `pnpm --filter @agent-teams/widget build`) and the demo page embedding it; without a build, the
 * plain home page stays at `/`.
 */
function widgetAssets(
  tokenHint: string | undefined,
  logger: Logger,
): { widgetBundle?: WidgetBundle; pageHtml?: string } {
  const file = fileURLToPath(new URL('../../widget/dist/widget.js', import.meta.url));
  if (!existsSync(file)) {
    logger.info('widget bundle not built; serving the plain home page', { file });
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
  const http = httpSettings(options, config, devToken);
  const app = await createApp({
    database: options.database,
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
    return { url, devToken, close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  }
}
