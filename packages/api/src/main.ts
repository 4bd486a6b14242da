import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@agent-teams/core';
import { createConfigCatalog } from './adapters/config-catalog.js';
import { createApp } from './app/create-app.js';
import type { ServeOptions } from './cli-options.js';
import { loadConfig } from './config/load-config.js';
import { type WidgetBundle, widgetDemoPage } from './server/widget-assets.js';

/** A started server: where it listens and how to stop it. */
export interface RunningServer {
  readonly url: string;
  readonly devToken: string | null;
  /** Stops admitting, lets in-flight writes finish, closes sockets and the database. */
  close(): Promise<void>;
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
 * Starts the server `agent-teams serve` runs: reads the configuration, builds the application
 * (`createApp`, the composition root) over the real clock, ids and database, and listens.
 */
export async function startAgentTeams(
  options: ServeOptions,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<RunningServer> {
  const { config, devToken } = await loadConfig(options.config, { host: options.host, env });
  const app = await createApp({
    database: options.database,
    catalog: createConfigCatalog(config.agents),
    tokens: config.tokens,
    logger,
    env,
    lease: { ttlMs: options.leaseTtlMs, heartbeatMs: options.heartbeatMs },
    cluster: { pollMs: options.eventPollMs },
    http: {
      live: { allowedOrigins: options.allowedOrigins },
      ...(devToken === null ? {} : { devToken }),
      ...widgetAssets(devToken, logger),
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
