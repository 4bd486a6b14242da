#!/usr/bin/env node
import { createConsoleLogger } from './adapters/console-logger.js';
import { parseServeOptions, USAGE, UsageError, withoutLeadingSeparator } from './cli-options.js';
import { databaseErrorMessage, ListenPreflightError, listenErrorMessage, probeListen } from './cli-preflight.js';
import { ConfigError } from './config/agent-teams-config.js';
import { databaseForDisplay } from './database-display.js';
import { type RunningServer, startAgentTeams } from './main.js';
import { packageVersion as version } from './package-version.js';
import { installSafetyNet } from './process-safety-net.js';
import { DatabaseNewerError } from './storage/database-newer-error.js';
import { DatabaseDirectoryError, DatabaseInUseError } from './storage/open-database.js';

/** How long shutdown may take before the process exits anyway (the contract allows 10 s). */
const SHUTDOWN_LIMIT_MS = 9_000;

async function serve(argv: readonly string[]): Promise<void> {
  const options = parseServeOptions(argv, process.env);
  // Before anything is opened: a port in use must not leave a new database file behind.
  await probeListen(options.host, options.port).catch((error: unknown) => {
    const message = listenErrorMessage(error, options.host, options.port);
    throw message === null ? error : new ListenPreflightError(message);
  });
  const logger = createConsoleLogger();
  let running: RunningServer | null = null;
  installSafetyNet({
    process,
    logger,
    drain: async () => running?.close(),
    exit: (code) => process.exit(code),
    limitMs: SHUTDOWN_LIMIT_MS,
  });
  const server = await startAgentTeams(options, process.env, logger);
  running = server;
  const lines = [`agent-teams ${version()} listening on ${server.url}`];
  lines.push(
    `  GraphQL and GraphiQL: ${server.url}/graphql   demo page: ${server.url}/   health: ${server.url}/health`,
  );
  // Said at start, so an operator sees that commits are not synced to disk one by one.
  const sync =
    options.sqliteSynchronous === 'normal'
      ? '   (synchronous=normal: a power loss may lose the last commits)'
      : options.sqliteSynchronous === 'group'
        ? '   (group commit)'
        : '';
  // Never the password of a PostgreSQL URL: stdout is collected like the logs.
  lines.push(`  database: ${databaseForDisplay(options.database)}${sync}`);
  if (server.devToken !== null) {
    lines.push(`  development token: ${server.devToken}   (send "Authorization: Bearer ${server.devToken}")`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  const shutdown = (signal: string) => {
    logger.info('shutting down', { signal });
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting', { limitMs: SHUTDOWN_LIMIT_MS });
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS);
    timer.unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = withoutLeadingSeparator(argv);
  switch (command) {
    // No arguments at all: serve with every default (demo agents, development token).
    case undefined:
    case 'serve':
      // `serve --help` (and `pnpm start -- --help`) asks for the help, not for a server.
      if (rest.includes('--help') || rest.includes('-h')) {
        process.stdout.write(USAGE);
        return;
      }
      return serve(rest);
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return;
    case 'version':
    case '--version':
      // `version --json` and the like are not supported: say so rather than ignore them.
      if (rest.length > 0) throw new UsageError(`version takes no arguments, got "${rest.join(' ')}"`);
      process.stdout.write(`${version()}\n`);
      return;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`agent-teams: ${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (
    error instanceof ConfigError ||
    error instanceof DatabaseInUseError ||
    error instanceof DatabaseDirectoryError ||
    error instanceof DatabaseNewerError ||
    error instanceof ListenPreflightError
  ) {
    process.stderr.write(`agent-teams: ${error.message}\n`);
    process.exit(1);
  }
  // The listen itself can still lose a race for the port after the preflight.
  const listenError = error as NodeJS.ErrnoException & { address?: string; port?: number };
  const known =
    (listenError.syscall === 'listen'
      ? listenErrorMessage(error, listenError.address ?? 'the host', listenError.port ?? 0)
      : null) ?? databaseErrorMessage(error);
  if (known !== null) {
    process.stderr.write(`agent-teams: ${known}\n`);
    process.exit(1);
  }
  process.stderr.write(`agent-teams: failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
