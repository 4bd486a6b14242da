import { type Clock, type EventSink, type Logger, type TeamEvent, TeamEventKind } from '@agent-teams/core';
import { type Kysely, type Selectable, sql } from 'kysely';
import { CoalescedTask } from '../async/coalesced-task.js';
import type { Database, TeamEventsTable } from '../storage/database-types.js';
import { literalLimit } from '../storage/literal-limit.js';
import { toEvent } from '../storage/row-mappers.js';
import { ChangeCursor } from './change-cursor.js';
import { OwnEvents } from './own-events.js';

/** Rows read per round trip; a full page is followed by another at once. */
const PAGE = 500;
/**
 * {@link PAGE} written into the reads' text, like the store's other fixed limits (decision 0231):
 * bound, it is one more parameter, and a generic plan of a prepared statement does not know it.
 */
const PAGE_LIMIT = literalLimit(PAGE);
/**
 * How long one read of the feed may take before the follower stops waiting for it. A healthy read
 * takes milliseconds; one sent on a pooled connection whose path to the database died silently
 * (a failover that moved the address, a firewall that dropped the connection's state) gets no
 * answer and no error until the kernel gives up on the socket, minutes later. Without the bound
 * the feed waited for it that long: no other server's event reached this server's subscribers.
 */
export const CHANGE_READ_TIMEOUT_MS = 10_000;
/**
 * Reads given up on and still unanswered, past which a poll waits instead of sending another:
 * each holds a pooled connection (a connect to a database that went silent can hang as long), and
 * one more every {@link CHANGE_READ_TIMEOUT_MS} would take the whole pool from the writes.
 */
export const ABANDONED_READS_MAX = 2;

/** One row of the feed: an event with its team's owner. */
type ChangeRow = Selectable<TeamEventsTable> & { readonly owner: string };

/** What a {@link ChangeFollower} reads from and hands events to. */
export interface ChangeFollowerOptions {
  readonly db: Kysely<Database>;
  readonly logger: Logger;
  readonly clock: Pick<Clock, 'nowMs'>;
  /** Receives the events other servers committed, in change id order. */
  readonly target: EventSink;
  readonly pollMs: number;
  readonly gapTimeoutMs: number;
  /** How long one read may take before the next poll tries again (default {@link CHANGE_READ_TIMEOUT_MS}). */
  readonly readTimeoutMs?: number;
}

/** Counters of a follower (benchmarks, tests). */
export interface ChangeFollowerStats {
  readonly polls: number;
  /** Events handed to the target. */
  readonly delivered: number;
  /** Events read back that this server had published itself. */
  readonly skippedOwn: number;
  readonly pendingGaps: number;
  readonly abandonedGaps: number;
  /** Every change id up to this one was delivered or given up. */
  readonly position: number;
}

/**
 * Follows the database-wide change feed (`team_events.change_id`) and hands the events other
 * servers committed to the local fan-out, as if they had been committed here.
 *
 * @remarks The table is the data; a wake-up ({@link wake}, from the cluster listener) or
 * `pollMs` passing only triggers a read, so a lost notification costs at most one poll interval.
 * Reads go through the pool, so they go on while the LISTEN connection reconnects. One read at a
 * time; wake-ups during a read make one more. Starts at the newest change id: subscribers replay
 * history from the log themselves.
 *
 * Own events are skipped by `teamId#seq` ({@link noteLocal}). The local publish always comes
 * first: `runWrite` publishes in the same microtask chain as its COMMIT's reply, so no read
 * result can be handled in between.
 */
export class ChangeFollower {
  readonly #opts: ChangeFollowerOptions;
  readonly #own = new OwnEvents();
  readonly #task: CoalescedTask;
  #cursor: ChangeCursor | null = null;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  /** Gives up the read in flight (set while one runs): `stop` does not wait for a silent database. */
  #giveUp: (() => void) | null = null;
  /** Reads given up on by their timeout and not answered yet (see {@link ABANDONED_READS_MAX}). */
  #abandoned = 0;
  #polls = 0;
  #delivered = 0;
  #skippedOwn = 0;

  constructor(opts: ChangeFollowerOptions) {
    this.#opts = opts;
    this.#task = new CoalescedTask(() => this.#poll());
  }

  /** A snapshot of the counters. */
  get stats(): ChangeFollowerStats {
    return {
      polls: this.#polls,
      delivered: this.#delivered,
      skippedOwn: this.#skippedOwn,
      pendingGaps: this.#cursor?.gaps.length ?? 0,
      abandonedGaps: this.#cursor?.abandoned ?? 0,
      position: this.#cursor?.position ?? 0,
    };
  }

  /** Places the cursor at the newest change and starts polling. */
  async start(): Promise<void> {
    const row = await this.#opts.db
      .selectFrom('team_events')
      .select((eb) => eb.fn.max('change_id').as('newest'))
      .executeTakeFirst();
    this.#cursor = new ChangeCursor(Number(row?.newest ?? 0), { gapTimeoutMs: this.#opts.gapTimeoutMs });
    this.#schedule();
  }

  /** Remembers events this server committed, so reading them back skips them. */
  noteLocal(events: readonly TeamEvent[]): void {
    this.#own.add(events, this.#opts.clock.nowMs());
  }

  /** Asks for a read now (coalesced with the one in flight). */
  wake(): void {
    if (this.#stopped || this.#cursor === null) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#task.request();
  }

  /** Stops polling and waits for the read in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#giveUp?.();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#task.stop();
  }

  #schedule(): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#task.request();
    }, this.#opts.pollMs);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    const cursor = this.#cursor;
    if (cursor === null) return;
    this.#polls += 1;
    if (this.#abandoned >= ABANDONED_READS_MAX) {
      this.#schedule();
      return;
    }
    try {
      cursor.expire(this.#opts.clock.nowMs());
      for (;;) {
        const { rows, more } = await this.#boundedRead(cursor);
        this.#deliver(cursor, rows);
        if (!more || this.#stopped) break;
      }
    } catch (error) {
      // A read given up by `stop` is no failure worth a warning.
      if (!this.#stopped) this.#opts.logger.warn('change feed read failed', { error });
    } finally {
      this.#schedule();
    }
  }

  /**
   * {@link #read}, given up after `readTimeoutMs`: the next poll reads again, on another pooled
   * connection, from the same cursor (a late answer of the abandoned read is dropped, so nothing
   * is delivered twice); `stop` gives it up at once, so a server's shutdown never waits for an
   * answer that may not come (it has 10 s in all).
   */
  async #boundedRead(cursor: ChangeCursor): Promise<{ rows: ChangeRow[]; more: boolean }> {
    const timeoutMs = this.#opts.readTimeoutMs ?? CHANGE_READ_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the change feed read got no answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.#giveUp = () => reject(new Error('the change feed stopped'));
    });
    const read = this.#read(cursor);
    try {
      return await Promise.race([read, timeout]);
    } catch (error) {
      // Still unanswered: counted until it settles, whatever it settles to.
      this.#abandoned += 1;
      void read.then(
        () => {
          this.#abandoned -= 1;
        },
        () => {
          this.#abandoned -= 1;
        },
      );
      throw error;
    } finally {
      clearTimeout(timer);
      this.#giveUp = null;
    }
  }

  /**
   * The next page of changes: logged events and deletion tombstones (numbered from the same
   * sequence), merged in change id order. When either read filled its page, only the ids up to the
   * smaller of the two last ids are returned, so nothing above them is skipped by the cursor.
   */
  async #read(cursor: ChangeCursor): Promise<{ rows: ChangeRow[]; more: boolean }> {
    const gaps = cursor.gaps;
    const news = (column: 'e.change_id' | 'd.change_id') =>
      sql<boolean>`(${sql.ref(column)} > ${cursor.highest}${gaps.length === 0 ? sql`` : sql` OR ${sql.ref(column)} = ANY(${gaps}::bigint[])`})`;
    const [events, deletions] = await Promise.all([
      this.#opts.db
        .selectFrom('team_events as e')
        .innerJoin('teams as t', 't.id', 'e.team_id')
        .selectAll('e')
        .select('t.owner')
        .where(news('e.change_id'))
        .orderBy('e.change_id')
        .limit(PAGE_LIMIT)
        .execute(),
      this.#opts.db
        .selectFrom('team_deletions as d')
        .select(['d.team_id', 'd.owner', 'd.seq', 'd.change_id', 'd.created_at'])
        .where(news('d.change_id'))
        .orderBy('d.change_id')
        .limit(PAGE_LIMIT)
        .execute(),
    ]);
    const tombstones: ChangeRow[] = deletions.map((row) => ({
      ...row,
      kind: TeamEventKind.TEAM_CHANGED,
      job_id: null,
      record_id: null,
      member_id: null,
      message_id: null,
      task_id: null,
      reason: null,
    }));
    const lastOf = (rows: readonly ChangeRow[]) =>
      rows.length < PAGE ? Number.POSITIVE_INFINITY : Number(rows[rows.length - 1]?.change_id);
    const upTo = Math.min(lastOf(events), lastOf(tombstones));
    const rows = [...events, ...tombstones]
      .filter((row) => Number(row.change_id) <= upTo)
      .sort((a, b) => Number(a.change_id) - Number(b.change_id));
    return { rows, more: upTo !== Number.POSITIVE_INFINITY };
  }

  #deliver(cursor: ChangeCursor, rows: readonly ChangeRow[]): void {
    const nowMs = this.#opts.clock.nowMs();
    const events: TeamEvent[] = [];
    for (const row of rows) {
      if (!cursor.accept(Number(row.change_id), nowMs)) continue;
      if (this.#own.has(row.team_id, Number(row.seq), nowMs)) {
        this.#skippedOwn += 1;
        continue;
      }
      events.push(toEvent(row));
    }
    if (events.length === 0) return;
    this.#delivered += events.length;
    try {
      this.#opts.target.published(events);
    } catch (error) {
      this.#opts.logger.error('remote event listener failed', { error });
    }
  }
}
