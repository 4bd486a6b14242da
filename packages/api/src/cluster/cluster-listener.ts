import type { Logger } from '@agent-teams/core';
import type { JobProgressNotice } from '../events/progress-hub.js';
import { CHANGES_CHANNEL, RELEASED } from './change-notifier.js';
import { type Backoff, DedicatedPgClient } from './dedicated-pg-client.js';
import { decodeProgress, PROGRESS_CHANNEL } from './progress-payload.js';

/** What a {@link ClusterListener} listens with and tells. */
export interface ClusterListenerOptions {
  readonly connectionString: string;
  readonly serverId: string;
  readonly logger: Logger;
  readonly backoff?: Backoff;
  /** Another server committed something (`released`: it just gave up its job leases). */
  readonly onChange: (released: boolean) => void;
  /** Another server's runs made progress. */
  readonly onProgress: (notices: readonly JobProgressNotice[]) => void;
  /** The connection is (again) up: notifications sent while it was down are lost, catch up. */
  readonly onReady: () => void;
}

/**
 * The one LISTEN session of a server: wake-ups on the changes channel and run progress on the
 * progress channel, from every other server (its own are ignored).
 *
 * @remarks `LISTEN` holds a session, so it lives on a dedicated connection, reconnected with a
 * backoff. A wake-up only triggers a read of the change feed; progress is carried in the payload
 * itself (it is stored nowhere).
 */
export class ClusterListener {
  readonly #opts: ClusterListenerOptions;
  readonly #client: DedicatedPgClient;
  #wakes = 0;

  constructor(opts: ClusterListenerOptions) {
    this.#opts = opts;
    this.#client = new DedicatedPgClient({
      connectionString: opts.connectionString,
      logger: opts.logger,
      name: 'agent-teams-listen',
      backoff: opts.backoff,
      onConnect: async (client) => {
        await client.query(`LISTEN ${CHANGES_CHANNEL}`);
        await client.query(`LISTEN ${PROGRESS_CHANNEL}`);
      },
      onReady: () => opts.onReady(),
      onNotification: (message) => this.#received(message.channel, message.payload ?? ''),
    });
  }

  /** Change wake-ups received from other servers. */
  get wakes(): number {
    return this.#wakes;
  }

  /** Connects (a failure is logged and retried in the background). */
  async start(): Promise<void> {
    await this.#client.start();
  }

  async stop(): Promise<void> {
    await this.#client.stop();
  }

  #received(channel: string, payload: string): void {
    try {
      if (channel === PROGRESS_CHANNEL) {
        const notices = decodeProgress(payload, this.#opts.serverId);
        if (notices.length > 0) this.#opts.onProgress(notices);
        return;
      }
      if (channel !== CHANGES_CHANNEL) return;
      const [sender, what] = payload.split(' ');
      if (sender === this.#opts.serverId) return;
      this.#wakes += 1;
      this.#opts.onChange(what === RELEASED);
    } catch (error) {
      this.#opts.logger.error('cluster notification listener failed', { channel, error });
    }
  }
}
