import { parseArgs } from 'node:util';
import {
  checkDatabase,
  parseAllowedOrigins,
  parseOtlpEndpoint,
  parsePgSwitch,
  parsePort,
  parsePublicUrl,
  parseSynchronous,
  refuseBlankFlags,
  UsageError,
} from './cli-option-parsers.js';
import type { SqliteSynchronous } from './storage/open-database.js';

export { UsageError } from './cli-option-parsers.js';

/** Options of `agent-teams serve`, after flags, environment and defaults are merged. */
export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  /** A file path, `:memory:`, or a `postgres://` URL. */
  readonly database: string;
  /** Path of the JSON configuration file; null runs the built-in demo agents. */
  readonly config: string | null;
  /**
   * Extra browser origins allowed to open the WebSocket (`scheme://host[:port]`, or `*`); loopback
   * origins and the server's own origin are always allowed.
   */
  readonly allowedOrigins: readonly string[];
  /** PostgreSQL: how often other servers' events are read at least (ms, 10..250). */
  readonly eventPollMs: number;
  /** How long a server's lease lasts without a heartbeat before others may take its jobs (ms). */
  readonly leaseTtlMs: number;
  /** How often a server renews its lease (ms, below half the lease TTL). */
  readonly heartbeatMs: number;
  /**
   * The origin clients and remote agents reach this server at (`https://teams.example`), used in
   * A2A agent cards and in the MCP URL sent to remote agents; null: the listening address.
   */
  readonly publicUrl: string | null;
  /** Largest request body in bytes, when given by flag or environment (else the config file's, else 1 MiB). */
  readonly maxBodyBytes: number | undefined;
  /** The rate limit's refill per second, when given by the environment (else the config file's). */
  readonly rateLimitPerSecond: number | undefined;
  /** The rate limit's burst, when given by the environment (else the config file's). */
  readonly rateLimitBurst: number | undefined;
  /** Where OpenTelemetry traces go (OTLP over HTTP, the full `/v1/traces` URL); null: tracing off. */
  readonly otlpEndpoint: string | null;
  /** SQLite files: `full` (default: every commit survives a power loss) or `normal` (no fsync per commit). */
  readonly sqliteSynchronous: SqliteSynchronous;
  /** PostgreSQL: statements prepared once per connection (default on; off for transaction-mode poolers). */
  readonly pgPreparedStatements: boolean;
  /** PostgreSQL: statements sent without waiting for the answers before them (default on; off for a proxy that cannot). */
  readonly pgPipeline: boolean;
}

/** Defaults of the contract: loopback, port 4000, an embedded SQLite file under `./data/`. */
export const SERVE_DEFAULTS = {
  port: 4000,
  host: '127.0.0.1',
  database: './data/teams.sqlite',
  eventPollMs: 250,
  leaseTtlMs: 15_000,
  heartbeatMs: 5_000,
} as const;

/** Accepted ranges of the numeric `serve` options (ms); the heartbeat must also stay below TTL / 2. */
export const SERVE_LIMITS = {
  eventPollMs: { min: 10, max: 250 },
  leaseTtlMs: { min: 1_000, max: 600_000 },
  heartbeatMs: { min: 100, max: 299_999 },
  /** Request body limit: 1 KiB to 64 MiB. */
  maxBodyBytes: { min: 1024, max: 64 * 1024 * 1024 },
  /** Rate limit refill per second (fractions allowed) and burst. */
  rateLimitPerSecond: { min: 0.01, max: 100_000 },
  rateLimitBurst: { min: 1, max: 1_000_000 },
} as const;

/** The `--help` text; documents every flag, its environment twin and default. */
export const USAGE = `Usage: agent-teams <command> [options]

Commands:
  serve      start the server (GraphQL at /graphql, demo page at /, health at /health)
  help       print this help
  version    print the version

Options of serve (each has an environment twin; flags win):
  --port <n>         port to listen on, 0 for any free port    AGENT_TEAMS_PORT      (default ${SERVE_DEFAULTS.port})
  --host <host>      interface to bind                          AGENT_TEAMS_HOST      (default ${SERVE_DEFAULTS.host})
  --database <db>    SQLite file path, :memory:, or postgres:// URL
                                                                AGENT_TEAMS_DATABASE  (default ${SERVE_DEFAULTS.database})
  --config <file>    JSON configuration (auth tokens, agents)   AGENT_TEAMS_CONFIG    (default: built-in demo agents
                                                                                       and a printed development token)
  --allowed-origins <list>  comma-separated browser origins (https://app.example[:port]) allowed to
                     open the WebSocket and call the API, or *
                                                                AGENT_TEAMS_ALLOWED_ORIGINS (default: loopback and
                                                                                       the server's own origin only)
  --event-poll <ms>  PostgreSQL: read other servers' events at least this often (10..250)
                                                                AGENT_TEAMS_EVENT_POLL_MS (default ${SERVE_DEFAULTS.eventPollMs})
  --lease-ttl <ms>   a server silent this long loses its jobs to the others (1000..600000)
                                                                AGENT_TEAMS_LEASE_TTL_MS (default ${SERVE_DEFAULTS.leaseTtlMs})
  --heartbeat <ms>   how often a server renews its lease (100 or more, below half the lease TTL)
                                                                AGENT_TEAMS_HEARTBEAT_MS (default ${SERVE_DEFAULTS.heartbeatMs})
  --public-url <url> the origin clients reach this server at (A2A agent cards, the MCP URL given to
                     remote agents), e.g. https://teams.example
                                                                AGENT_TEAMS_PUBLIC_URL (default: the listening address)
  --max-body-bytes <n>  largest request body; larger ones get 413 before parsing (1024..67108864)
                                                                AGENT_TEAMS_MAX_BODY_BYTES (default: the config
                                                                                       file's http.maxBodyBytes, else 1048576)
  --otlp-endpoint <url>  send OpenTelemetry traces (OTLP/HTTP) to this URL, e.g. http://collector:4318/v1/traces
                                                                AGENT_TEAMS_OTLP_ENDPOINT (default: the standard
                                                                                       OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or
                                                                                       OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces;
                                                                                       else tracing is off)
  --sqlite-synchronous <full|group|normal>  SQLite files: full syncs every commit (survives a power loss);
                     group keeps that with group commit (the sync off the event loop, shared by the
                     commits made meanwhile: more writes/s under concurrent load, a longer wait alone);
                     normal syncs at checkpoints (no fsync per commit; a crash of the process loses
                     nothing, a power loss may lose the last commits)
                                                                AGENT_TEAMS_SQLITE_SYNCHRONOUS (default full)
  --pg-prepared-statements <on|off>  PostgreSQL: each statement prepared (parsed and planned) once per
                     connection; off for a pooler in transaction mode that cannot keep prepared statements
                                                                AGENT_TEAMS_PG_PREPARED_STATEMENTS (default on)
  --pg-pipeline <on|off>  PostgreSQL: a statement sent without waiting for the answers before it, so a
                     transaction waits fewer round trips; off for a proxy that cannot take pipelined statements
                                                                AGENT_TEAMS_PG_PIPELINE (default on)
Other environment:
  AGENT_TEAMS_DEV_TOKEN   the development token used when no --config is given (default on loopback: dev-token)
  AGENT_TEAMS_RATE_LIMIT_PER_SECOND, AGENT_TEAMS_RATE_LIMIT_BURST
                          each owner's operations per second and burst (default: the config file's
                          rateLimit, else 50 and 200); answers and cancels are never limited
  AGENT_TEAMS_DEMO_PROVIDER  the demo agents' runtime without --config: scripted (default) or openai,
                          with AGENT_TEAMS_OPENAI_BASE_URL (default https://api.openai.com/v1),
                          AGENT_TEAMS_OPENAI_MODEL (default gpt-4o-mini) and AGENT_TEAMS_OPENAI_API_KEY_ENV
                          (the variable holding the key, default OPENAI_API_KEY)
A blank flag is refused; a blank environment variable counts as unset.
`;

/** A whole number of milliseconds within `range`, from a flag or its environment twin. */
function parseMs(value: string, source: string, range: { readonly min: number; readonly max: number }): number {
  const ms = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(ms >= range.min && ms <= range.max)) {
    throw new UsageError(
      `${source} must be a whole number of milliseconds from ${range.min} to ${range.max}, got "${value}"`,
    );
  }
  return ms;
}

/** A number within `range` (whole unless `fractional`), from a flag or its environment twin. */
function parseNumber(
  value: string,
  source: string,
  range: { readonly min: number; readonly max: number },
  fractional = false,
): number {
  const n = (fractional ? /^\d+(\.\d+)?$/ : /^\d+$/).test(value) ? Number(value) : Number.NaN;
  if (!(n >= range.min && n <= range.max)) {
    const kind = fractional ? 'a number' : 'a whole number';
    throw new UsageError(`${source} must be ${kind} from ${range.min} to ${range.max}, got "${value}"`);
  }
  return n;
}

/** An optional number option, checked against its {@link SERVE_LIMITS} range. */
function optionalNumber(
  text: string | undefined,
  source: string,
  limit: 'maxBodyBytes' | 'rateLimitPerSecond' | 'rateLimitBurst',
  fractional = false,
): number | undefined {
  return text === undefined ? undefined : parseNumber(text.trim(), source, SERVE_LIMITS[limit], fractional);
}

/**
 * The arguments without one leading `--`: `pnpm start -- --port 5000` and
 * `pnpm agent-teams -- serve` (npm's habit) hand the separator on. Any other `--` stays.
 */
export function withoutLeadingSeparator(argv: readonly string[]): string[] {
  return argv[0] === '--' ? argv.slice(1) : [...argv];
}

/** Parses `serve` flags and merges the environment twins and defaults. */
export function parseServeOptions(argv: readonly string[], env: NodeJS.ProcessEnv): ServeOptions {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      // A second `--` stays the end of options, so what follows it is refused below.
      args: withoutLeadingSeparator(argv),
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        database: { type: 'string' },
        config: { type: 'string' },
        'allowed-origins': { type: 'string' },
        'event-poll': { type: 'string' },
        'lease-ttl': { type: 'string' },
        heartbeat: { type: 'string' },
        'public-url': { type: 'string' },
        'max-body-bytes': { type: 'string' },
        'otlp-endpoint': { type: 'string' },
        'sqlite-synchronous': { type: 'string' },
        'pg-prepared-statements': { type: 'string' },
        'pg-pipeline': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  refuseBlankFlags(values);
  const nonBlank = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value);
  // A flag wins over its environment twin; the error names whichever was used.
  const ms = (flag: string, envName: string, range: { min: number; max: number }, fallback: number) => {
    const fromFlag = nonBlank(values[flag]);
    const text = fromFlag ?? nonBlank(env[envName]);
    return text === undefined ? fallback : parseMs(text.trim(), fromFlag ? `--${flag}` : envName, range);
  };
  const leaseTtlMs = ms('lease-ttl', 'AGENT_TEAMS_LEASE_TTL_MS', SERVE_LIMITS.leaseTtlMs, SERVE_DEFAULTS.leaseTtlMs);
  const heartbeatMs = ms('heartbeat', 'AGENT_TEAMS_HEARTBEAT_MS', SERVE_LIMITS.heartbeatMs, SERVE_DEFAULTS.heartbeatMs);
  // Below half the TTL, so one late or lost heartbeat never costs a live server its lease.
  if (heartbeatMs * 2 >= leaseTtlMs) {
    throw new UsageError(
      `the heartbeat (--heartbeat / AGENT_TEAMS_HEARTBEAT_MS, ${heartbeatMs} ms) must be below half the lease TTL (--lease-ttl / AGENT_TEAMS_LEASE_TTL_MS, ${leaseTtlMs} ms)`,
    );
  }
  const envDatabase = nonBlank(env.AGENT_TEAMS_DATABASE);
  const database = values.database
    ? checkDatabase(values.database.trim(), '--database')
    : envDatabase
      ? checkDatabase(envDatabase.trim(), 'AGENT_TEAMS_DATABASE')
      : SERVE_DEFAULTS.database;
  return {
    port: parsePort(values.port, nonBlank(env.AGENT_TEAMS_PORT), SERVE_DEFAULTS.port),
    host: nonBlank(values.host) ?? nonBlank(env.AGENT_TEAMS_HOST) ?? SERVE_DEFAULTS.host,
    database,
    config: nonBlank(values.config) ?? nonBlank(env.AGENT_TEAMS_CONFIG) ?? null,
    allowedOrigins: parseAllowedOrigins(values['allowed-origins'], nonBlank(env.AGENT_TEAMS_ALLOWED_ORIGINS)),
    eventPollMs: ms('event-poll', 'AGENT_TEAMS_EVENT_POLL_MS', SERVE_LIMITS.eventPollMs, SERVE_DEFAULTS.eventPollMs),
    leaseTtlMs,
    heartbeatMs,
    publicUrl: parsePublicUrl(values['public-url'], env.AGENT_TEAMS_PUBLIC_URL),
    maxBodyBytes:
      optionalNumber(nonBlank(values['max-body-bytes']), '--max-body-bytes', 'maxBodyBytes') ??
      optionalNumber(nonBlank(env.AGENT_TEAMS_MAX_BODY_BYTES), 'AGENT_TEAMS_MAX_BODY_BYTES', 'maxBodyBytes'),
    rateLimitPerSecond: optionalNumber(
      nonBlank(env.AGENT_TEAMS_RATE_LIMIT_PER_SECOND),
      'AGENT_TEAMS_RATE_LIMIT_PER_SECOND',
      'rateLimitPerSecond',
      true,
    ),
    rateLimitBurst: optionalNumber(
      nonBlank(env.AGENT_TEAMS_RATE_LIMIT_BURST),
      'AGENT_TEAMS_RATE_LIMIT_BURST',
      'rateLimitBurst',
    ),
    otlpEndpoint: parseOtlpEndpoint(nonBlank(values['otlp-endpoint']), env, nonBlank),
    sqliteSynchronous: parseSynchronous(
      nonBlank(values['sqlite-synchronous']),
      nonBlank(env.AGENT_TEAMS_SQLITE_SYNCHRONOUS),
      database,
    ),
    pgPreparedStatements: parsePgSwitch(
      nonBlank(values['pg-prepared-statements']),
      nonBlank(env.AGENT_TEAMS_PG_PREPARED_STATEMENTS),
      database,
      { flag: '--pg-prepared-statements', twin: 'AGENT_TEAMS_PG_PREPARED_STATEMENTS' },
    ),
    pgPipeline: parsePgSwitch(nonBlank(values['pg-pipeline']), nonBlank(env.AGENT_TEAMS_PG_PIPELINE), database, {
      flag: '--pg-pipeline',
      twin: 'AGENT_TEAMS_PG_PIPELINE',
    }),
  };
}
