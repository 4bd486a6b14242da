import type { Logger } from '@agent-teams/core';
import { CoalescedTask } from '../async/coalesced-task.js';
import type { JobProgressNotice } from '../events/progress-hub.js';
import { encodeProgress, PROGRESS_CHANNEL } from './progress-payload.js';

/** How long progress waits before it is sent, so one NOTIFY carries many deltas (default 10 ms). */
export const PROGRESS_DELAY_MS = 10;

/** Progress held while it cannot be sent; beyond it the oldest notices are dropped (default 4,096). */
export const PROGRESS_PENDING_LIMIT = 4_096;

/** What a {@link ProgressSender} sends through. */
export interface ProgressSenderOptions {
  readonly serverId: string;
  readonly logger: Logger;
  /** Sends one NOTIFY; false when there is no connection (the batch is then dropped). */
  readonly notify: (channel: string, payload: string) => Promise<boolean>;
  readonly delayMs?: number;
}

/**
 * Sends this server's run progress to the other servers (`jobProgress` subscribers may be
 * connected to any of them): notices are collected for a few milliseconds, then packed into
 * bounded NOTIFY payloads.
 *
 * @remarks Progress is not stored anywhere (the final answer is on the job), so this is best
 * effort by design: without a connection a batch is dropped and counted, and a burst larger than
 * {@link PROGRESS_PENDING_LIMIT} notices loses its oldest ones rather than growing without bound.
 */
export class ProgressSender {
  readonly #opts: ProgressSenderOptions;
  readonly #task: CoalescedTask;
  #pending: JobProgressNotice[] = [];
  #dropped = 0;
  #sent = 0;

  constructor(opts: ProgressSenderOptions) {
    this.#opts = opts;
    const delayMs = opts.delayMs ?? PROGRESS_DELAY_MS;
    this.#task = new CoalescedTask(() => this.#flush(), {
      defer: (start) => setTimeout(start, delayMs).unref(),
    });
  }

  /** Payloads sent and notices dropped so far (tests, benchmarks). */
  get stats(): { readonly sent: number; readonly dropped: number } {
    return { sent: this.#sent, dropped: this.#dropped };
  }

  /** Queues a local notice for the other servers. */
  send(notice: JobProgressNotice): void {
    this.#pending.push(notice);
    if (this.#pending.length > PROGRESS_PENDING_LIMIT) {
      this.#dropped += this.#pending.length - PROGRESS_PENDING_LIMIT;
      this.#pending.splice(0, this.#pending.length - PROGRESS_PENDING_LIMIT);
    }
    this.#task.request();
  }

  /** Sends what is queued, then refuses more. */
  async stop(): Promise<void> {
    await this.#task.stop();
    if (this.#pending.length > 0) await this.#flush();
  }

  async #flush(): Promise<void> {
    const notices = this.#pending;
    this.#pending = [];
    for (const payload of encodeProgress(this.#opts.serverId, notices)) {
      try {
        if (await this.#opts.notify(PROGRESS_CHANNEL, payload)) this.#sent += 1;
        else this.#dropped += 1;
      } catch (error) {
        this.#dropped += 1;
        this.#opts.logger.warn('progress notify failed', { error });
      }
    }
  }
}
