import type { Logger } from '@agent-teams/core';
import pg from 'pg';

/** Reconnect delays: doubling from `minMs` up to `maxMs`, back to `minMs` after a success. */
export interface Backoff {
  readonly minMs: number;
  readonly maxMs: number;
}

const DEFAULT_BACKOFF: Backoff = { minMs: 100, maxMs: 5_000 };

/** What a {@link DedicatedPgClient} connects to and does with its connection. */
export interface DedicatedPgClientOptions {
  readonly connectionString: string;
  readonly logger: Logger;
  /** Names the connection in logs and in `pg_stat_activity.application_name`. */
  readonly name: string;
  /** Runs after every (re)connect, before the client counts as ready (e.g. `LISTEN`). */
  readonly onConnect?: (client: pg.Client) => Promise<void>;
  /** Called once the client is ready again (e.g. to send what waited for the connection). */
  readonly onReady?: () => void;
  readonly onNotification?: (message: pg.Notification) => void;
  /** Bound of one query and of connecting, so a silent network loss ends in a reconnect. */
  readonly timeoutMs?: number;
  readonly backoff?: Backoff;
}

/**
 * One `pg.Client` outside the pool, kept connected: on an error or end it is logged, dropped and
 * replaced after a backoff.
 *
 * @remarks `LISTEN` holds a session, so it cannot live on a pooled connection; and a notify must
 * not wait behind requests for a pool slot. Callers never wait for a reconnect: while
 * {@link ready} is null they skip their work (the change feed's polling covers for them).
 */
export class DedicatedPgClient {
  readonly #opts: DedicatedPgClientOptions;
  readonly #backoff: Backoff;
  #client: pg.Client | null = null;
  #connecting: Promise<boolean> | null = null;
  #retry: NodeJS.Timeout | null = null;
  #delayMs: number;
  #stopped = false;

  constructor(opts: DedicatedPgClientOptions) {
    this.#opts = opts;
    this.#backoff = opts.backoff ?? DEFAULT_BACKOFF;
    this.#delayMs = this.#backoff.minMs;
  }

  /** The connected client, or null while (re)connecting. */
  get ready(): pg.Client | null {
    return this.#client;
  }

  /** Makes the first connection attempt; on failure it keeps retrying in the background. */
  start(): Promise<boolean> {
    this.#connecting ??= this.#connect();
    return this.#connecting;
  }

  /** Drops the ready client after a failed query and reconnects (after a backoff). */
  reset(error: unknown): void {
    const client = this.#client;
    if (client !== null) this.#lost(client, error);
  }

  /** Stops reconnecting and closes the connection. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    await this.#connecting;
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<boolean> {
    const { connectionString, name, timeoutMs = 5_000 } = this.#opts;
    const client = new pg.Client({
      connectionString,
      application_name: name,
      keepAlive: true,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
    });
    // Without an 'error' listener a dropped connection would crash the process.
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, null));
    client.on('notification', (message) => this.#opts.onNotification?.(message));
    try {
      await client.connect();
      await this.#opts.onConnect?.(client);
    } catch (error) {
      this.#opts.logger.warn('cluster connection failed; retrying', { name, error, retryInMs: this.#delayMs });
      await client.end().catch(() => undefined);
      this.#connecting = null;
      this.#scheduleRetry();
      return false;
    }
    this.#connecting = null;
    if (this.#stopped) {
      await client.end().catch(() => undefined);
      return false;
    }
    this.#client = client;
    this.#delayMs = this.#backoff.minMs;
    this.#opts.onReady?.();
    return true;
  }

  #lost(client: pg.Client, error: unknown): void {
    // Errors of a client still connecting are handled by #connect; stale clients are ignored.
    if (this.#client !== client) return;
    this.#client = null;
    if (this.#stopped) return;
    this.#opts.logger.warn('cluster connection lost; reconnecting', { name: this.#opts.name, error });
    client.end().catch(() => undefined);
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (this.#stopped || this.#retry) return;
    const delay = this.#delayMs;
    this.#delayMs = Math.min(this.#delayMs * 2, this.#backoff.maxMs);
    this.#retry = setTimeout(() => {
      this.#retry = null;
      if (!this.#stopped) this.#connecting ??= this.#connect();
    }, delay);
    // The server's listener keeps the process alive; a pending reconnect must not.
    this.#retry.unref();
  }
}
