import type { Core, OwnerId, TeamEvent, TeamId } from '@agent-teams/core';
import { CoalescedTask } from '../async/coalesced-task.js';
import type { EventHub, ViewBatch } from '../events/event-hub.js';
import type { ReplayCharge } from './replay-charge.js';
import { type CursorFeed, FeedCursor, FeedEntry, READ_PAGE } from './team-feed-cursor.js';

/** Events each team feed keeps in memory for subscribers that are a little behind. */
export const FEED_RING_SIZE = 256;

/** What a feed needs: the log, and how an event becomes what `teamEvents` resolves. */
export interface TeamFeedDeps<V> {
  readonly core: Core;
  readonly eventHub: EventHub;
  /**
   * Loads the entity the event names; null when it no longer exists (the event is skipped).
   * `batch` is the same object for the events of one published commit (or one page read from the
   * log), so their loads can share one set of batch loaders: a commit's events name the same team
   * and often the same job, read once instead of once per event.
   */
  readonly loadView: (event: TeamEvent, batch: ViewBatch) => Promise<V | null>;
  /** Charges the owner for a catch-up's size before it starts (`replay-charge.ts`); absent: free. */
  readonly chargeReplay?: ReplayCharge;
}

/** Shared, in-order followers of team event logs, one per watched team. */
export interface TeamFeeds<V> {
  /**
   * Follows a team's log after `afterSeq` (the caller checked ownership and expiry): replays from
   * the log what the in-memory ring no longer holds, then follows live.
   */
  follow(owner: OwnerId, teamId: TeamId, afterSeq: number, headSeq: number): AsyncIterableIterator<V>;
  /** Teams currently followed (for tests and metrics). */
  readonly size: number;
}

/**
 * Creates the per-server registry of team feeds.
 *
 * @remarks One feed per watched team turns published events into one ordered, gap-free list, so
 * 1,000 subscribers of a team cost one log read per gap and one view load per event instead of
 * one of each per subscriber. Published batches are used directly when they continue the feed;
 * a gap (a batch published out of commit order, or events committed before the feed existed) is
 * filled from the log, which stays the source of truth. Each subscriber is a cursor (a seq) over
 * the feed; a view object is shared, so the server can cache each event's serialized result by
 * object identity.
 */
export function createTeamFeeds<V extends object>(deps: TeamFeedDeps<V>): TeamFeeds<V> {
  const feeds = new Map<TeamId, TeamFeed<V>>();
  // Listens only while some team is followed.
  let unlisten: (() => void) | null = null;
  return {
    follow(owner, teamId, afterSeq, headSeq) {
      // Charged before the feed and cursor exist: a catch-up behind the head pays for its size.
      deps.chargeReplay?.(owner, headSeq - afterSeq);
      let feed = feeds.get(teamId);
      if (!feed || feed.ended) {
        unlisten ??= deps.eventHub.listen((events, rows) => {
          const batch: ViewBatch = rows === undefined ? {} : { rows };
          for (const event of events) feeds.get(event.teamId)?.published(event, batch);
        });
        const created = new TeamFeed<V>(owner, teamId, headSeq, deps, () => {
          if (feeds.get(teamId) === created) feeds.delete(teamId);
          if (feeds.size === 0) {
            unlisten?.();
            unlisten = null;
          }
        });
        feeds.set(teamId, created);
        feed = created;
      }
      return feed.cursor(afterSeq);
    },
    get size() {
      return feeds.size;
    },
  };
}

/** One watched team: its ring of recent events, the cursors following it, and the gap filling. */
class TeamFeed<V> implements CursorFeed<V> {
  readonly #ring: FeedEntry<V>[] = [];
  #lastSeq: number;
  readonly #filler = new CoalescedTask(() => this.#fillOnce());
  #ended = false;
  /** Wakes the waiting cursors once per turn of the event loop, however many views loaded in it. */
  readonly #waker = new CoalescedTask(async () => this.#wake(), { defer: (start) => setImmediate(start) });
  #cursors = 0;
  readonly #waiters = new Set<() => void>();

  constructor(
    readonly owner: OwnerId,
    readonly teamId: TeamId,
    startSeq: number,
    readonly deps: TeamFeedDeps<V>,
    readonly onIdle: () => void,
  ) {
    this.#lastSeq = startSeq;
    // Events may have committed between the caller's read of the team and this feed existing.
    this.#fill();
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The entry of `seq` when the ring still holds it. */
  entry(seq: number): FeedEntry<V> | undefined {
    const first = this.#ring[0]?.event.seq;
    return first === undefined || seq < first ? undefined : this.#ring[seq - first];
  }

  addWaiter(wake: () => void): void {
    this.#waiters.add(wake);
  }

  removeWaiter(wake: () => void): void {
    this.#waiters.delete(wake);
  }

  published(event: TeamEvent, batch: ViewBatch): void {
    if (this.#filler.busy) {
      // The read in flight may have missed it: one more read after it.
      this.#filler.request();
    } else if (event.seq === this.#lastSeq + 1) {
      this.#append(event, batch);
    } else if (event.seq > this.#lastSeq + 1) {
      this.#fill();
    }
  }

  /** Up to one page of logged events after `afterSeq`. */
  readLog(afterSeq: number): Promise<readonly TeamEvent[]> {
    return this.deps.core.events.read(this.owner, this.teamId, afterSeq, READ_PAGE);
  }

  /** A replayed event's view (older than the ring: loaded per cursor, not shared). */
  loadView(event: TeamEvent): Promise<V | null> {
    return this.deps.loadView(event, {});
  }

  cursor(afterSeq: number): AsyncIterableIterator<V> {
    this.#cursors += 1;
    return new FeedCursor(this, afterSeq, () => {
      this.#cursors -= 1;
      if (this.#cursors === 0) {
        this.#end();
        this.onIdle();
      }
    });
  }

  /**
   * Appends an event and starts loading its view at once; subscribers are woken when it loaded.
   *
   * @remarks Loading on append keeps the view load off the delivery path: the views of a
   * commit's events load together while nobody waits, instead of each one after the previous
   * event reached every subscriber. Waking once the views are there (coalesced to one wake per
   * turn of the event loop) lets each subscriber take the whole commit in one synchronous pass.
   */
  #append(event: TeamEvent, batch: ViewBatch): void {
    this.#ring.push(new FeedEntry(event, (e) => this.#loadEntryView(e, batch), this.#wakeSoon));
    if (this.#ring.length > FEED_RING_SIZE) this.#ring.shift();
    this.#lastSeq = event.seq;
  }

  /** The event's view; a null view of a team that no longer exists ends the feed. */
  readonly #loadEntryView = async (event: TeamEvent, batch: ViewBatch): Promise<V | null> => {
    const view = await this.deps.loadView(event, batch);
    if (view === null && (await this.deps.core.teams.get(this.owner, this.teamId)) === null) this.#end();
    return view;
  };

  readonly #wakeSoon = (): void => this.#waker.request();

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }

  #end(): void {
    this.#ended = true;
    this.#wake();
  }

  /** Reads the log from the last seq until it is exhausted, again if events arrived meanwhile. */
  #fill(): void {
    if (!this.#ended) this.#filler.request();
  }

  async #fillOnce(): Promise<void> {
    if (this.#ended) return;
    try {
      for (;;) {
        const events = await this.readLog(this.#lastSeq);
        const batch: ViewBatch = {};
        for (const event of events) if (event.seq === this.#lastSeq + 1) this.#append(event, batch);
        if (events.length < READ_PAGE) break;
      }
    } catch {
      // The team was deleted (NOT_FOUND) or the database failed: end, subscribers resume later.
      this.#end();
    }
  }
}
