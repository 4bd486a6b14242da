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
  return url.href.replace(/\/+$/, '');
}

/** `on` (default) or `off` from the flag or its twin; `off` is refused for a SQLite file (it has no such setting). */
export function parsePgPrepared(flag: string | undefined, twin: string | undefined, database: string): boolean {
  const text = flag ?? twin;
  if (text === undefined) return true;
  const source = flag !== undefined ? '--pg-prepared-statements' : 'AGENT_TEAMS_PG_PREPARED_STATEMENTS';
  const value = text.trim().toLowerCase();
  if (value !== 'on' && value !== 'off') throw new UsageError(`${source} must be on or off, got "${text}"`);
  if (value === 'off' && !isPostgresTarget(database)) {
    throw new UsageError(`${source} applies to PostgreSQL databases, not to a SQLite file`);
  }
  return value === 'on';
}
