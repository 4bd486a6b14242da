import type { Clock, EventSink, Logger } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { JobProgressNotice } from '../events/progress-hub.js';
import type { Database } from '../storage/database-types.js';
import { ChangeFollower, type ChangeFollowerStats } from './change-follower.js';
import { ChangeNotifier } from './change-notifier.js';
import { ClusterListener } from './cluster-listener.js';
import type { Backoff } from './dedicated-pg-client.js';
import { ProgressSender } from './progress-sender.js';

/** The polling fallback's bounds: another server's events arrive within 250 ms even without NOTIFY. */
export const EVENT_POLL_MS = { min: 10, max: 250, default: 250 } as const;
/** How long a missing change id is waited for by default before it counts as rolled back. */
export const DEFAULT_GAP_TIMEOUT_MS = 10_000;

/** What {@link createClusterChanges} is built from. */
export interface ClusterChangesOptions {
  /** The `postgres://` URL: LISTEN and NOTIFY need connections of their own. */
  readonly connectionString: string;
  /** The database's pool, for reading the feed. */
  readonly db: Kysely<Database>;
  /** This server incarnation's id; wake-ups it sent itself are ignored. */
  readonly serverId: string;
  readonly logger: Logger;
  /** Receives other servers' events (in the server: the same fan-out as local commits). */
  readonly target: EventSink;
  /** Called when another server announces it released its leases (claim them now). */
  readonly onWake?: () => void;
  /** Receives the other servers' run progress (needs `notify`: progress travels only by NOTIFY). */
  readonly onProgress?: (notice: JobProgressNotice) => void;
  /** Read at least this often (10..250 ms, default 250). */
  readonly pollMs?: number;
  /** How long a missing change id is waited for (default 10 s). */
  readonly gapTimeoutMs?: number;
  /** Send and listen for wake-ups (default true); false leaves polling alone. */
  readonly notify?: boolean;
  /** Times the gap and own-event bounds (default: the system clock). */
  readonly clock?: Pick<Clock, 'nowMs'>;
  readonly backoff?: Backoff;
}

/** Counters of the cluster change feed (benchmarks, tests). */
export interface ClusterChangeStats extends ChangeFollowerStats {
  /** Wake-ups sent to the other servers. */
  readonly notifies: number;
  /** Wake-ups received from the other servers. */
  readonly wakes: number;
  /** Progress payloads sent to the other servers. */
  readonly progressSent: number;
}

/** Live events across servers on one PostgreSQL database. */
export interface ClusterChanges {
  /** Put into the local fan-out: remembers own events and wakes the other servers. */
  readonly localSink: EventSink;
  /** Reads the newest change id, connects, starts polling. */
  start(): Promise<void>;
  /** Sends what was asked for, stops polling and closes its connections. */
  stop(): Promise<void>;
  /** Tells the other servers this one released its leases, so they claim its jobs at once. */
  announce(): void;
  /** Sends a run's progress on this server to the other servers' `jobProgress` subscribers. */
  relayProgress(notice: JobProgressNotice): void;
  /** Asks for a read now (tests, benchmarks); polling does it on its own otherwise. */
  poll(): void;
  readonly stats: ClusterChangeStats;
}

/**
 * Builds the cross-server change feed: a notifier for local commits and a follower that hands
 * other servers' events to `target`.
 *
 * @remarks LISTEN/NOTIFY is only a coalesced wake-up; the events always come from `team_events`
 * by `change_id`, polled every `pollMs` anyway, so a lost notification costs at most one poll.
 * Run progress is the exception: it is stored nowhere, so it travels in NOTIFY payloads
 * (`progress-sender.ts`), best effort, like the live deltas it feeds.
 */
export function createClusterChanges(opts: ClusterChangesOptions): ClusterChanges {
  const pollMs = opts.pollMs ?? EVENT_POLL_MS.default;
  if (!Number.isInteger(pollMs) || pollMs < EVENT_POLL_MS.min || pollMs > EVENT_POLL_MS.max) {
    throw new RangeError(
      `[agent-teams/api] pollMs must be a whole number from ${EVENT_POLL_MS.min} to ${EVENT_POLL_MS.max}, got ${pollMs}`,
    );
  }
  const gapTimeoutMs = opts.gapTimeoutMs ?? DEFAULT_GAP_TIMEOUT_MS;
  if (!(gapTimeoutMs > 0)) throw new RangeError(`[agent-teams/api] gapTimeoutMs must be positive, got ${gapTimeoutMs}`);
  const notify = opts.notify ?? true;
  const clock = opts.clock ?? { nowMs: () => Date.now() };
  const notifier = notify
    ? new ChangeNotifier({
        connectionString: opts.connectionString,
        serverId: opts.serverId,
        logger: opts.logger,
        backoff: opts.backoff,
      })
    : null;
  const follower = new ChangeFollower({
    db: opts.db,
    logger: opts.logger,
    clock,
    target: opts.target,
    pollMs,
    gapTimeoutMs,
  });
  const listener = notify
    ? new ClusterListener({
        connectionString: opts.connectionString,
        serverId: opts.serverId,
        logger: opts.logger,
        backoff: opts.backoff,
        onReady: () => follower.wake(),
        onChange: (released) => {
          follower.wake();
          // Only a release matters to the scheduler; new events reach it through the target.
          if (released) opts.onWake?.();
        },
        onProgress: (notices) => {
          for (const notice of notices) opts.onProgress?.(notice);
        },
      })
    : null;
  const progress = notifier
    ? new ProgressSender({
        serverId: opts.serverId,
        logger: opts.logger,
        notify: (channel, payload) => notifier.notifyOn(channel, payload),
      })
    : null;
  return {
    localSink: {
      published(events) {
        if (events.length === 0) return;
        // Remembered first, so the follower skips them when it reads them back from the log.
        follower.noteLocal(events);
        notifier?.published(events);
      },
    },
    async start() {
      await Promise.all([follower.start(), notifier?.start(), listener?.start()]);
    },
    async stop() {
      await progress?.stop();
      await Promise.all([follower.stop(), notifier?.stop(), listener?.stop()]);
    },
    announce() {
      notifier?.notifyReleased();
    },
    relayProgress(notice) {
      progress?.send(notice);
    },
    poll() {
      follower.wake();
    },
    get stats() {
      return {
        ...follower.stats,
        notifies: notifier?.sent ?? 0,
        wakes: listener?.wakes ?? 0,
        progressSent: progress?.stats.sent ?? 0,
      };
    },
  };
}
