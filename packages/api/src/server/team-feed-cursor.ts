import { setImmediate as nextTurn } from 'node:timers/promises';
import { DomainError, type TeamEvent } from '@agent-teams/core';
import { PULL_OR_WAKE, PULL_READY, type WakingEvents } from './live/ready-events.js';

/** Events read from the log per round trip (gap fill and replay). */
export const READ_PAGE = 100;

/**
 * Events a cursor replays from the log per turn of the event loop; then it yields (`setImmediate`).
 *
 * @remarks On SQLite a log read and a view load settle in microtasks (the driver is synchronous),
 * so a replay that never yields holds the event loop until it ends: one socket's 20 subscriptions
 * replaying 1,000 events each stalled every other request (`/health`, other owners, even the
 * sockets' own close) for 5 s, and subscribes churned within the rate limit for minutes. Yielding
 * every few events lets I/O and the other replays in; a few, not one, so a replay's frames still
 * leave in batches.
 */
export const REPLAY_EVENTS_PER_TURN = 8;

/** One event of a feed, with its view loaded once (as soon as it is appended) and shared. */
export class FeedEntry<V> {
  /** True once `view` resolved to `value`: cursors then take it without awaiting. */
  loaded = false;
  value: V | null = null;
  /** The view; it rejects when loading failed (the cursor that reaches it reports the error). */
  readonly view: Promise<V | null>;

  constructor(
    readonly event: TeamEvent,
    load: (event: TeamEvent) => Promise<V | null>,
    onSettled: () => void,
  ) {
    this.view = load(event).then((view) => {
      this.value = view;
      this.loaded = true;
      onSettled();
      return view;
    });
    this.view.catch(onSettled);
  }
}

/** What a cursor reads: the feed's in-memory ring, its progress, and the log behind it. */
export interface CursorFeed<V> {
  /** The seq of the last event appended. */
  readonly lastSeq: number;
  /** True once the feed stopped (no cursors left, the team is gone, or the log failed). */
  readonly ended: boolean;
  /** The entry of `seq` when the ring still holds it. */
  entry(seq: number): FeedEntry<V> | undefined;
  /** Calls `wake` once, when newly appended views loaded (or failed) or the feed ended. */
  addWaiter(wake: () => void): void;
  removeWaiter(wake: () => void): void;
  /** Up to one page of logged events after `afterSeq`. */
  readLog(afterSeq: number): Promise<readonly TeamEvent[]>;
  /** Loads a replayed event's view (not shared: it is not in the ring). */
  loadView(event: TeamEvent): Promise<V | null>;
}

/** One subscriber's position in a feed; replays from the log what the ring no longer holds. */
export class FeedCursor<V> implements AsyncIterableIterator<V>, WakingEvents<V> {
  #seq: number;
  #closed = false;
  #replay: TeamEvent[] = [];
  /** Events replayed since this cursor last yielded the event loop. */
  #replayedThisTurn = 0;
  /** Resolves the pending wait, if any. */
  #wake: (() => void) | null = null;
  /** The wake armed by {@link PULL_OR_WAKE} while nothing new is in the feed. */
  #armed: (() => void) | null = null;
  /** What a `next()` started by {@link PULL_OR_WAKE} answered, not pulled yet. */
  #answered: { readonly step: IteratorResult<V> } | { readonly error: unknown } | null = null;
  readonly #onFeedWake = (): void => {
    const wake = this.#armed;
    this.#armed = null;
    wake?.();
  };
  // One executor per cursor rather than closures per wait: a fan-out waits 1,000 cursors per commit.
  readonly #waitExecutor = (resolve: () => void): void => {
    this.#wake = resolve;
    this.#feed.addWaiter(resolve);
  };
  readonly #feed: CursorFeed<V>;
  readonly #release: () => void;

  constructor(feed: CursorFeed<V>, afterSeq: number, release: () => void) {
    this.#feed = feed;
    this.#seq = afterSeq;
    this.#release = release;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<V> {
    return this;
  }

  async next(): Promise<IteratorResult<V>> {
    // An answer a wake delivered but nobody pulled comes first (a reader that mixes both ways).
    const answered = this.#takeAnswered();
    if (answered !== undefined) return answered;
    const feed = this.#feed;
    while (!this.#closed) {
      const want = this.#seq + 1;
      const entry = feed.entry(want);
      if (entry) {
        this.#seq = want;
        const view = entry.loaded ? entry.value : await entry.view;
        if (view !== null && !this.#closed) return { done: false, value: view };
      } else if (want <= feed.lastSeq) {
        const view = await this.#replayOne(want);
        if (view !== null && !this.#closed) return { done: false, value: view };
      } else if (feed.ended) {
        break;
      } else {
        await new Promise<void>(this.#waitExecutor);
        this.#wake = null;
      }
    }
    return this.#finish();
  }

  /** The next event when the ring holds it with its view loaded; otherwise `next()` must wait. */
  [PULL_READY](): IteratorResult<V> | undefined {
    const answered = this.#takeAnswered();
    if (answered !== undefined) return answered;
    for (;;) {
      const entry = this.#closed ? undefined : this.#feed.entry(this.#seq + 1);
      if (!entry?.loaded) return undefined;
      this.#seq += 1;
      // A null view (the entity is gone) is skipped, as `next()` does.
      if (entry.value !== null) return { done: false, value: entry.value };
    }
  }

  /**
   * The next event if ready, else a wake: straight from the feed while nothing new was appended
   * (the common wait, no promise), or once `next()` answered for the rest (a view still loading
   * or failed, a replay from the log, the feed's end), whose answer the next pull returns.
   */
  [PULL_OR_WAKE](wake: () => void): IteratorResult<V> | undefined {
    const ready = this[PULL_READY]();
    if (ready !== undefined) return ready;
    if (this.#closed) return { done: true, value: undefined };
    const feed = this.#feed;
    const want = this.#seq + 1;
    if (feed.entry(want) === undefined && want > feed.lastSeq && !feed.ended) {
      this.#armed = wake;
      feed.addWaiter(this.#onFeedWake);
      return undefined;
    }
    this.next().then(
      (step) => {
        this.#answered = { step };
        wake();
      },
      (error: unknown) => {
        this.#answered = { error };
        wake();
      },
    );
    return undefined;
  }

  /** What a `next()` started by {@link PULL_OR_WAKE} answered (thrown if it failed), once. */
  #takeAnswered(): IteratorResult<V> | undefined {
    const answered = this.#answered;
    if (answered === null) return undefined;
    this.#answered = null;
    if ('error' in answered) throw answered.error;
    return answered.step;
  }

  async return(): Promise<IteratorResult<V>> {
    return this.#finish();
  }

  #finish(): IteratorResult<V> {
    if (!this.#closed) {
      this.#closed = true;
      const wake = this.#wake;
      if (wake) {
        this.#feed.removeWaiter(wake);
        wake();
      }
      const armed = this.#armed;
      this.#armed = null;
      if (armed) this.#feed.removeWaiter(this.#onFeedWake);
      this.#release();
      // Last: the subscriber finds the cursor closed (its pull answers the end).
      armed?.();
    }
    return { done: true, value: undefined };
  }

  /** Delivers `want` from the log: it is older than the ring holds. */
  async #replayOne(want: number): Promise<V | null> {
    if (++this.#replayedThisTurn > REPLAY_EVENTS_PER_TURN) {
      this.#replayedThisTurn = 1;
      await nextTurn();
      // Closed meanwhile (the subscriber left, its socket closed): nothing more is read.
      if (this.#closed) return null;
    }
    while (this.#replay.length > 0 && (this.#replay[0]?.seq ?? want) < want) this.#replay.shift();
    if (this.#replay.length === 0) {
      this.#replay = [...(await this.#feed.readLog(want - 1))];
    }
    const event = this.#replay.shift();
    if (event?.seq !== want) {
      throw new DomainError('RESUME_EXPIRED', 'Events after this seq are no longer retained; refetch the team.', {
        field: 'afterSeq',
      });
    }
    this.#seq = want;
    return this.#feed.loadView(event);
  }
}
