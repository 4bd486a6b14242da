import type { EventSink, Logger, TeamEvent } from '@agent-teams/core';
import { CoalescedTask } from '../async/coalesced-task.js';
import { type Backoff, DedicatedPgClient } from './dedicated-pg-client.js';

/** The payload suffix of a wake-up sent after releasing leases. */
export const RELEASED = 'released';

/**
 * The PostgreSQL channel servers wake each other on. The payload is the sender's server id,
 * followed by ` released` when the sender has just given up its job leases.
 */
export const CHANGES_CHANNEL = 'agent_teams_changes';

/** What a {@link ChangeNotifier} needs. */
export interface ChangeNotifierOptions {
  readonly connectionString: string;
  readonly serverId: string;
  readonly logger: Logger;
  readonly backoff?: Backoff;
  /**
   * How long a wake-up for new events waits before it is sent (default 10 ms): the commits of
   * that window share one notify, and the other servers' reads stay out of the few milliseconds
   * in which this server's own work on the change (admission, the run start) competes for the
   * same cores and database. A release announcement is sent at once.
   */
  readonly delayMs?: number;
}

/** Default of {@link ChangeNotifierOptions.delayMs}. */
export const NOTIFY_DELAY_MS = 10;

/**
 * Tells the other servers "something changed" after local commits: an {@link EventSink} for the
 * local fan-out that sends `pg_notify` on its own connection.
 *
 * @remarks A notify is only a wake-up; the events themselves are read from `team_events`. It is
 * sent outside every write transaction (inside one, PostgreSQL serializes all committing
 * notifiers on one lock) and coalesced: at most one in flight, and whatever arrives meanwhile
 * becomes exactly one more. `published` never waits and never throws. A lost notify (no
 * connection, failed query) only delays the others until their next poll.
 */
export class ChangeNotifier implements EventSink {
  readonly #opts: ChangeNotifierOptions;
  readonly #client: DedicatedPgClient;
  readonly #task: CoalescedTask;
  /** A wake-up asked for while there was no connection; sent once it is back. */
  #waiting = false;
  #delay: NodeJS.Timeout | null = null;
  #released = false;
  #sent = 0;

  constructor(opts: ChangeNotifierOptions) {
    this.#opts = opts;
    this.#client = new DedicatedPgClient({
      connectionString: opts.connectionString,
      logger: opts.logger,
      name: 'agent-teams-notify',
      backoff: opts.backoff,
      onReady: () => {
        if (this.#waiting) this.notify();
      },
    });
    this.#task = new CoalescedTask(() => this.#send());
  }

  /** Notifies sent so far (benchmarks). */
  get sent(): number {
    return this.#sent;
  }

  /** Connects (a failure is logged and retried in the background). */
  async start(): Promise<void> {
    await this.#client.start();
  }

  published(events: readonly TeamEvent[]): void {
    if (events.length === 0 || this.#delay !== null) return;
    const delayMs = this.#opts.delayMs ?? NOTIFY_DELAY_MS;
    if (delayMs <= 0) {
      this.notify();
      return;
    }
    this.#delay = setTimeout(() => {
      this.#delay = null;
      this.notify();
    }, delayMs);
    this.#delay.unref();
  }

  /** Asks for one wake-up of the other servers, with or without new events. */
  notify(): void {
    this.#task.request();
  }

  /** Tells the other servers this one released its leases (they claim the jobs at once). */
  notifyReleased(): void {
    this.#released = true;
    this.#task.request();
  }

  /**
   * Sends one NOTIFY on `channel` on this connection (run progress); false when there is no
   * connection now. A failed query resets the connection and throws.
   */
  async notifyOn(channel: string, payload: string): Promise<boolean> {
    const client = this.#client.ready;
    if (client === null) return false;
    try {
      await client.query('SELECT pg_notify($1, $2)', [channel, payload]);
      return true;
    } catch (error) {
      this.#client.reset(error);
      throw error;
    }
  }

  /** Sends what was already asked for, then closes the connection. */
  async stop(): Promise<void> {
    if (this.#delay !== null) {
      clearTimeout(this.#delay);
      this.#delay = null;
      this.notify();
    }
    await this.#task.stop();
    await this.#client.stop();
  }

  async #send(): Promise<void> {
    const client = this.#client.ready;
    if (client === null) {
      this.#waiting = true;
      return;
    }
    this.#waiting = false;
    try {
      const released = this.#released;
      this.#released = false;
      const payload = released ? `${this.#opts.serverId} ${RELEASED}` : this.#opts.serverId;
      await client.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, payload]);
      this.#sent += 1;
    } catch (error) {
      this.#opts.logger.warn('change notify failed', { error });
      // Sent again once reconnected: cheap, and it spares the others a poll interval.
      this.#waiting = true;
      this.#client.reset(error);
    }
  }
}
