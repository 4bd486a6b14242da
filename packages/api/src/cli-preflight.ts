import { createServer } from 'node:net';

/**
 * Binds `host:port` once and lets go, so a port in use, a port this user may not bind or a host
 * that is not an address of this machine stops `serve` before the database is opened, created or
 * migrated. The real listen comes moments later and reports any race the same way.
 * @throws the listen error (`EADDRINUSE`, `EACCES`, `EADDRNOTAVAIL`, `ENOTFOUND`, …).
 */
export function probeListen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * The operator's message for an error of {@link probeListen} or of the real listen, naming the
 * option to change, or null for any other error.
 */
export function listenErrorMessage(error: unknown, host: string, port: number): string | null {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  // A connect or file error of the database may carry the same codes: not a listen problem.
  if (syscall !== 'listen' && syscall !== 'getaddrinfo') return null;
  const where = `${host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return `${where} is already in use; choose another with --port (or AGENT_TEAMS_PORT)`;
    case 'EACCES':
      return `${where} may not be used by this user; choose another with --port (or AGENT_TEAMS_PORT)`;
    case 'EADDRNOTAVAIL':
      return `--host ${host} is not an address of this machine; choose another with --host (or AGENT_TEAMS_HOST)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return `--host ${host} does not resolve to an address; choose another with --host (or AGENT_TEAMS_HOST)`;
    default:
      return null;
  }
}

/** The address `serve` was asked to listen on cannot be used; printed alone, exit code 1. */
export class ListenPreflightError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListenPreflightError';
  }
}

/** Driver codes that mean "this database cannot be opened as given", not a defect of the server. */
const DATABASE_OPEN_CODES = new Set([
  // PostgreSQL (SQLSTATE): no such database, no such role or a refused password.
  '3D000',
  '28000',
  '28P01',
  // Network, reaching the PostgreSQL server.
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  // SQLite: not a file it can open, not a database, or not writable.
  'SQLITE_CANTOPEN',
  'SQLITE_NOTADB',
  'SQLITE_READONLY',
  'SQLITE_PERM',
]);

/**
 * The operator's message for a database `serve` could not open (unreachable server, unknown
 * database or role, a path that is not a SQLite file), naming the option; null for any other error,
 * which keeps its stack. The URL is not repeated, as it may hold a password.
 */
export function databaseErrorMessage(error: unknown): string | null {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || !DATABASE_OPEN_CODES.has(code)) return null;
  return `cannot open the database given by --database (or AGENT_TEAMS_DATABASE): ${String(message)}`;
}
