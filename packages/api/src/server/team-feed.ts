import { type Core, DomainError, type OwnerId, type TeamEvent, type TeamId } from '@agent-teams/core';
import type { EventHub } from './event-hub.js';

/** Events each team feed keeps in memory for subscribers that are a little behind. */
export const FEED_RING_SIZE = 256;
/** Events read from the log per round trip (gap fill and replay). */
const READ_PAGE = 100;

/** One event of a feed, with its view loaded at most once and shared by every subscriber. */
interface FeedEntry<V> {
  readonly event: TeamEvent;
  view: Promise<V | null> | null;
}

/** What a feed needs: the log, and how an event becomes what `teamEvents` resolves. */
export interface TeamFeedDeps<V> {
  readonly core: Core;
  readonly eventHub: EventHub;
  /** Loads the entity the event names; null when it no longer exists (the event is skipped). */
  readonly loadView: (event: TeamEvent) => Promise<V | null>;
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
      let feed = feeds.get(teamId);
      if (!feed || feed.ended) {
        unlisten ??= deps.eventHub.listen((events) => {
          for (const event of events) feeds.get(event.teamId)?.published(event);
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

class TeamFeed<V> {
  readonly #ring: FeedEntry<V>[] = [];
  #lastSeq: number;
  #filling = false;
  #dirty = false;
  #ended = false;
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

  view(entry: FeedEntry<V>): Promise<V | null> {
    entry.view ??= this.deps.loadView(entry.event).then(async (view) => {
      if (view === null && (await this.deps.core.teams.get(this.owner, this.teamId)) === null) this.#end();
      return view;
    });
    return entry.view;
  }

  /** Resolves at the next append or end, or when `cancel` is called. */
  changed(): { promise: Promise<void>; cancel: () => void } {
    let cancel = () => {};
    const promise = new Promise<void>((resolve) => {
      this.#waiters.add(resolve);
      cancel = () => {
        this.#waiters.delete(resolve);
        resolve();
      };
    });
    return { promise, cancel };
  }

  published(event: TeamEvent): void {
    if (this.#filling) {
      this.#dirty = true;
    } else if (event.seq === this.#lastSeq + 1) {
      this.#append(event);
      this.#wake();
    } else if (event.seq > this.#lastSeq + 1) {
      this.#fill();
    }
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

  #append(event: TeamEvent): void {
    this.#ring.push({ event, view: null });
    if (this.#ring.length > FEED_RING_SIZE) this.#ring.shift();
    this.#lastSeq = event.seq;
  }

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
    if (this.#filling || this.#ended) return;
    this.#filling = true;
    void (async () => {
      try {
        do {
          this.#dirty = false;
          for (;;) {
            const events = await this.deps.core.events.read(this.owner, this.teamId, this.#lastSeq, READ_PAGE);
            for (const event of events) if (event.seq === this.#lastSeq + 1) this.#append(event);
            if (events.length > 0) this.#wake();
            if (events.length < READ_PAGE) break;
          }
        } while (this.#dirty && !this.#ended);
      } catch {
        // The team was deleted (NOT_FOUND) or the database failed: end, subscribers resume later.
        this.#end();
      } finally {
        this.#filling = false;
      }
    })();
  }
}

/** One subscriber's position in a feed; replays from the log what the ring no longer holds. */
class FeedCursor<V> implements AsyncIterableIterator<V> {
  #seq: number;
  #closed = false;
  #replay: TeamEvent[] = [];
  #cancelWait: (() => void) | null = null;
  readonly #feed: TeamFeed<V>;
  readonly #release: () => void;

  constructor(feed: TeamFeed<V>, afterSeq: number, release: () => void) {
    this.#feed = feed;
    this.#seq = afterSeq;
    this.#release = release;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<V> {
    return this;
  }

  async next(): Promise<IteratorResult<V>> {
    const feed = this.#feed;
    while (!this.#closed) {
      const want = this.#seq + 1;
      const entry = feed.entry(want);
      if (entry) {
        this.#seq = want;
        const view = await feed.view(entry);
        if (view !== null && !this.#closed) return { done: false, value: view };
      } else if (want <= feed.lastSeq) {
        const view = await this.#replayOne(want);
        if (view !== null && !this.#closed) return { done: false, value: view };
      } else if (feed.ended) {
        break;
      } else {
        const { promise, cancel } = feed.changed();
        this.#cancelWait = cancel;
        await promise;
        this.#cancelWait = null;
      }
    }
    return this.#finish();
  }

  async return(): Promise<IteratorResult<V>> {
    return this.#finish();
  }

  #finish(): IteratorResult<V> {
    if (!this.#closed) {
      this.#closed = true;
      this.#cancelWait?.();
      this.#release();
    }
    return { done: true, value: undefined };
  }

  /** Delivers `want` from the log: it is older than the ring holds. */
  async #replayOne(want: number): Promise<V | null> {
    while (this.#replay.length > 0 && (this.#replay[0]?.seq ?? want) < want) this.#replay.shift();
    if (this.#replay.length === 0) {
      this.#replay = [
        ...(await this.#feed.deps.core.events.read(this.#feed.owner, this.#feed.teamId, want - 1, READ_PAGE)),
      ];
    }
    const event = this.#replay.shift();
    if (event?.seq !== want) {
      throw new DomainError('RESUME_EXPIRED', 'Events after this seq are no longer retained; refetch the team.', {
        field: 'afterSeq',
      });
    }
    this.#seq = want;
    return this.#feed.deps.loadView(event);
  }
}
