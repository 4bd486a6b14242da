import type { Logger, RunState } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from './database-types.js';

/**
 * How long a run's final write waits for a job write to carry it (milliseconds) before it is
 * committed alone. The scheduler's step after the run's `settled` notice takes a few
 * milliseconds; past this the ride is given up, which costs one commit and nothing else.
 */
export const RIDE_WAIT_MS = 1_000;

/** A ride whose own write failed this many times is dropped: its run replays from what is stored. */
export const RIDE_MAX_FAILURES = 3;

/** Runs whose ride was lost or dropped, remembered for the job write decided on the announced state. */
const ENDED_UNWRITTEN_KEPT = 1_000;

/**
 * A run's final write inside a transaction: the run row's conditional move to its end (or its
 * insert already ended) and what goes with it. False: another execution ended the run first,
 * and nothing was written.
 */
export type RideWrite = (trx: Kysely<Database>, now: string) => Promise<boolean>;

/** Thrown inside a write whose ride found its run already ended by another execution (rolls it back). */
export class RideLostError extends Error {
  constructor(readonly runId: string) {
    super(`run ${runId} was ended by another execution; the write that carried its end is rolled back`);
    this.name = 'RideLostError';
  }
}

/** A ride held by one open transaction, ended by how that transaction ends. */
export interface HeldRide {
  readonly runId: string;
  readonly write: RideWrite;
}

interface Ride extends HeldRide {
  readonly state: RunState;
  /** Set while an open transaction holds it; resolves when that transaction has ended. */
  held: Promise<void> | null;
  /** The transaction holding it is a job write decided on the announced end (the scheduler's). */
  heldDecided: boolean;
  release: () => void;
  /** The wait is over (or the process stops): it is written alone, not offered to job writes only. */
  expired: boolean;
  timer: NodeJS.Timeout | null;
  /** How many times its own write threw. */
  failures: number;
  resolve(ended: boolean): void;
  /** Its announced outcome is void: it was lost to another execution, or dropped. */
  onVoid: () => void;
}

/**
 * Final writes of runs offered to the job write that records them (decision 0221): a runtime
 * whose run ended hands its last write here and announces the outcome at once; the scheduler's
 * step polls it, and the store's `updateJob` of the job naming the run writes it in its own
 * transaction, so a turn's end and its job's outcome are one commit instead of two.
 *
 * @remarks Crash-safe like a write not made yet: until a transaction carrying the ride commits,
 * the database shows the run still going (or, for a run begun and ended at once, not begun) and
 * its job unfinished, so after a restart the scheduler polls or starts it again with its key and
 * the run is replayed. A ride not taken within the wait is written alone (`writeAlone`, a
 * transaction of its own). Every write claims the ride inside its transaction and waits for a
 * transaction that holds it, so a job write never commits a run's id while that run's end is
 * still in memory: it writes the end itself, or finds it committed.
 */
export class RunRides {
  readonly #rides = new Map<string, Ride>();
  /** Runs whose announced end was voided (lost or dropped): the next write claiming one rolls back. */
  readonly #voided = new Set<string>();
  readonly #waitMs: number;
  readonly #writeAlone: (runId: string) => Promise<unknown>;
  readonly #logger: Logger | null;
  #closed = false;

  /**
   * @param writeAlone commits the ride of `runId` in a transaction of its own that claims it
   *   (`WriteScope.carryRide`).
   * @param waitMs how long a ride is offered before it is written alone ({@link RIDE_WAIT_MS}).
   */
  constructor(
    writeAlone: (runId: string) => Promise<unknown>,
    waitMs: number = RIDE_WAIT_MS,
    logger: Logger | null = null,
  ) {
    this.#writeAlone = writeAlone;
    this.#waitMs = waitMs;
    this.#logger = logger;
  }

  /**
   * Offers a run's final write (replacing an older offer of the same run, which resolves false).
   * `onVoid` is called, synchronously, when the announced outcome no longer holds: another
   * execution had ended the run first, or the write failed {@link RIDE_MAX_FAILURES} times.
   * @returns whether it took effect: true once a transaction carrying it committed.
   */
  offer(runId: string, state: RunState, write: RideWrite, onVoid: () => void = () => undefined): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    const older = this.#rides.get(runId);
    if (older !== undefined) this.#end(older, false);
    this.#voided.delete(runId);
    return new Promise<boolean>((resolve) => {
      const ride: Ride = {
        runId,
        write,
        state,
        held: null,
        heldDecided: false,
        release: () => undefined,
        expired: false,
        timer: null,
        failures: 0,
        resolve,
        onVoid,
      };
      this.#rides.set(runId, ride);
      this.#arm(ride);
    });
  }

  /** The outcome of a run whose final write has not committed yet. */
  stateOf(runId: string): RunState | undefined {
    return this.#rides.get(runId)?.state;
  }

  /**
   * Called inside a transaction that may carry `runId`'s end: waits while another transaction
   * holds the ride, then holds it. Undefined: nothing to carry (none offered, or already committed).
   * `decided`: the transaction is a job write decided on the announced end (the scheduler's, after
   * its poll). Such a write throws `RideLostError` once for a run whose announcement was voided
   * meanwhile: its retried step reads what is stored. Other writes (alone, a person's) pass.
   */
  async claim(runId: string, decided = false): Promise<HeldRide | undefined> {
    for (;;) {
      const ride = this.#rides.get(runId);
      if (ride === undefined) {
        if (decided && this.#voided.delete(runId)) throw new RideLostError(runId);
        return undefined;
      }
      if (ride.held === null) {
        ride.heldDecided = decided;
        ride.held = new Promise<void>((release) => {
          ride.release = release;
        });
        return ride;
      }
      await ride.held;
    }
  }

  /**
   * The transaction holding `held` has ended: committed (the run's end is written), lost the
   * race (`RideLostError`: another execution ended the run) or failed otherwise (offered again;
   * past its wait, written alone a wait later).
   */
  ended(held: HeldRide, error: unknown | null): void {
    const ride = this.#rides.get(held.runId);
    if (ride === undefined || ride.write !== held.write) return;
    if (error === null) {
      this.#end(ride, true);
      return;
    }
    if (error instanceof RideLostError && error.runId === ride.runId) {
      // A decided write that lost it has rolled itself back; anyone else's loss is news to it.
      this.#void(ride, !ride.heldDecided);
      return;
    }
    if (ride.failures >= RIDE_MAX_FAILURES) {
      this.#logger?.error('a run end could not be written; it is dropped and the run replays from what is stored', {
        runId: ride.runId,
        error: String(error),
      });
      // Whoever held it may retry at once (`runWrite`): a decided write must not commit without it.
      this.#void(ride, true);
      return;
    }
    this.#unhold(ride);
    if (ride.expired && ride.timer === null) this.#arm(ride);
  }

  /** The ride's own write threw inside the transaction holding it (counted towards dropping it). */
  failed(held: HeldRide): void {
    const ride = this.#rides.get(held.runId);
    if (ride !== undefined && ride.write === held.write) ride.failures += 1;
  }

  /**
   * Writes every offered ride alone now (shutdown). Resolves once each has been tried (a ride
   * whose write failed stays offered; nothing is lost that a crash would not lose).
   */
  async flush(): Promise<void> {
    const rides = [...this.#rides.values()];
    for (const ride of rides) {
      ride.expired = true;
      if (ride.timer !== null) clearTimeout(ride.timer);
      ride.timer = null;
    }
    await Promise.all(
      rides.map((ride) => this.#writeAlone(ride.runId).catch((error) => this.#alonefailed(ride, error))),
    );
  }

  /** Refuses further offers and stops the timers (after {@link flush}, when the database closes). */
  close(): void {
    this.#closed = true;
    for (const ride of this.#rides.values()) {
      if (ride.timer !== null) clearTimeout(ride.timer);
      ride.timer = null;
    }
  }

  #arm(ride: Ride): void {
    if (this.#closed) return;
    ride.timer = setTimeout(() => {
      ride.timer = null;
      ride.expired = true;
      this.#writeAlone(ride.runId).catch((error) => this.#alonefailed(ride, error));
    }, this.#waitMs);
    ride.timer.unref();
  }

  /** A write alone failed: the ride stays offered and is tried again a wait later (until dropped). */
  #alonefailed(ride: Ride, error: unknown): void {
    if (this.#rides.get(ride.runId) !== ride) return;
    this.#logger?.warn('writing a run end alone failed; retrying', { runId: ride.runId, error: String(error) });
    if (ride.held === null && ride.timer === null) this.#arm(ride);
  }

  /**
   * The ride's announced end no longer holds (lost or dropped); `mark`: a job write decided on
   * the announcement may still come, and the next one to claim the run rolls back.
   */
  #void(ride: Ride, mark: boolean): void {
    if (mark) {
      if (this.#voided.size >= ENDED_UNWRITTEN_KEPT) this.#voided.delete(this.#voided.values().next().value as string);
      this.#voided.add(ride.runId);
    }
    this.#end(ride, false);
    ride.onVoid();
  }

  #unhold(ride: Ride): void {
    ride.held = null;
    ride.release();
  }

  #end(ride: Ride, ended: boolean): void {
    if (ride.timer !== null) clearTimeout(ride.timer);
    ride.timer = null;
    if (this.#rides.get(ride.runId) === ride) this.#rides.delete(ride.runId);
    this.#unhold(ride);
    ride.resolve(ended);
  }
}
