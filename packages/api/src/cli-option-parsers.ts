import { isPostgresTarget, SQLITE_SYNCHRONOUS, type SqliteSynchronous } from './storage/open-database.js';

/** A command line that cannot be run; printed with the usage and exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** `full`, `group` or `normal` from the flag or its twin; refused for a PostgreSQL database (it has its own setting). */
export function parseSynchronous(
  flag: string | undefined,
  twin: string | undefined,
  database: string,
): SqliteSynchronous {
  const text = flag ?? twin;
  if (text === undefined) return 'full';
  const source = flag !== undefined ? '--sqlite-synchronous' : 'AGENT_TEAMS_SQLITE_SYNCHRONOUS';
  const value = SQLITE_SYNCHRONOUS.find((known) => known === text.trim().toLowerCase());
  if (value === undefined) throw new UsageError(`${source} must be full, group or normal, got "${text}"`);
  if (value !== 'full' && isPostgresTarget(database)) {
    throw new UsageError(`${source} applies to SQLite files; PostgreSQL's own setting is synchronous_commit`);
  }
  return value;
}

/**
 * The OTLP/HTTP traces URL: the flag, its twin, then the standard OpenTelemetry variables (the
 * base `OTEL_EXPORTER_OTLP_ENDPOINT` gets `/v1/traces`, as the OTLP exporter specification says).
 */
export function parseOtlpEndpoint(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  nonBlank: (value: string | undefined) => string | undefined,
): string | null {
  const base = nonBlank(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const candidates: [string | undefined, string][] = [
    [flag, '--otlp-endpoint'],
    [nonBlank(env.AGENT_TEAMS_OTLP_ENDPOINT), 'AGENT_TEAMS_OTLP_ENDPOINT'],
    [nonBlank(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
    [base && `${base.trim().replace(/\/+$/, '')}/v1/traces`, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
  ];
  const found = candidates.find(([value]) => value !== undefined);
  if (!found) return null;
  const [text, source] = found as [string, string];
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(`${source} must be an http(s) URL, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source} must be an http(s) URL, got "${text}"`);
  }
  return url.toString();
}

/** An absolute http(s) origin (a path is kept, a trailing slash dropped), from the flag or its twin. */
export function parsePublicUrl(flag: string | undefined, twin: string | undefined): string | null {
  const fromFlag = flag !== undefined && flag.trim() !== '';
  const text = fromFlag ? flag : twin !== undefined && twin.trim() !== '' ? twin : undefined;
  if (text === undefined) return null;
  const source = fromFlag ? '--public-url' : 'AGENT_TEAMS_PUBLIC_URL';
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(`${source} must be an absolute http(s) URL, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source} must be an absolute http(s) URL, got "${text}"`);
  }
  // Paths are appended to it (`/mcp`, `/a2a/…`): a query or fragment would swallow them, and
  // credentials would be handed to every remote agent.
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new UsageError(`${source} must not hold credentials, a query or a fragment, got "${text}"`);
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * A PostgreSQL switch, `on` (default) or `off`, from its flag or its twin (`names`); `off` is
 * refused for a SQLite file (it has no such setting).
 */
export function parsePgSwitch(
  flag: string | undefined,
  twin: string | undefined,
  database: string,
  names: { readonly flag: string; readonly twin: string },
): boolean {
  const text = flag ?? twin;
  if (text === undefined) return true;
  const source = flag !== undefined ? names.flag : names.twin;
  const value = text.trim().toLowerCase();
  if (value !== 'on' && value !== 'off') throw new UsageError(`${source} must be on or off, got "${text}"`);
  if (value === 'off' && !isPostgresTarget(database)) {
    throw new UsageError(`${source} applies to PostgreSQL databases, not to a SQLite file`);
  }
  return value === 'on';
}

/**
 * Refuses a flag given with a blank value (`--database=`, `--config "$UNSET"`): falling back to
 * the default would serve another database, or the demo agents, than the one asked for. A blank
 * environment twin still means "not set", as container files often declare `NAME=`.
 */
export function refuseBlankFlags(values: Readonly<Record<string, string | undefined>>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && value.trim() === '') throw new UsageError(`--${name} must not be blank`);
  }
}

/** A port from 0 to 65535 (0: any free port), from the flag or its twin. */
export function parsePort(flag: string | undefined, twin: string | undefined, fallback: number): number {
  const text = flag ?? twin;
  if (text === undefined) return fallback;
  const source = flag !== undefined ? '--port' : 'AGENT_TEAMS_PORT';
  const port = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(port <= 65_535)) throw new UsageError(`${source} must be a whole number from 0 to 65535, got "${text}"`);
  return port;
}

/** A scheme at the start (`mysql://`, `file:`), which would otherwise be taken for a relative file path. */
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Checks `--database`: a `postgres://`/`postgresql://` URL that parses, `:memory:`, or a file path.
 * Any other URL (`mysql://…`, `sqlite:…`) is refused: it would silently become a SQLite file named
 * after it. The value is never echoed, as a PostgreSQL URL may hold a password.
 */
export function checkDatabase(database: string, source: string): string {
  if (isPostgresTarget(database)) {
    try {
      new URL(database);
    } catch {
      throw new UsageError(`${source} is not a valid postgres:// URL (postgres://user:password@host:5432/db)`);
    }
    return database;
  }
  // One letter before the colon is a Windows drive (C:\data\teams.sqlite), not a scheme.
  if (database !== ':memory:' && URL_SCHEME.test(database) && !/^[a-z]:[\\/]/i.test(database)) {
    throw new UsageError(`${source} must be a SQLite file path, :memory:, or a postgres:// URL`);
  }
  return database;
}

/**
 * The extra origins allowed to open the WebSocket and call the API: `*`, or each an http(s) origin
 * (`https://app.example`, a port when not the scheme's own). Anything else is refused, because the
 * origin check compares exact origins: a path, a missing scheme or `:443` would never match.
 */
export function parseAllowedOrigins(flag: string | undefined, twin: string | undefined): string[] {
  const text = flag ?? twin ?? '';
  const source = flag !== undefined ? '--allowed-origins' : 'AGENT_TEAMS_ALLOWED_ORIGINS';
  const origins = text
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    if (origin === '*') continue;
    let url: URL | null = null;
    try {
      url = new URL(origin);
    } catch {
      // refused below
    }
    // Case and one trailing slash do not matter to the origin check (`server/live/origin-policy.ts`).
    const ok =
      url !== null &&
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.origin.toLowerCase() === origin.replace(/\/$/, '').toLowerCase();
    if (!ok) {
      const hint = url?.origin.startsWith('http') ? `; did you mean ${url.origin}?` : '';
      throw new UsageError(
        `${source}: "${origin}" is not an origin (scheme://host[:port], e.g. https://app.example) or *${hint}`,
      );
    }
  }
  return origins;
}
