import type { RunState } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from './database-types.js';

/**
 * How long a run's final write waits for a job write to carry it (milliseconds) before it is
 * committed alone. The scheduler's step after the run's `settled` notice takes a few
 * milliseconds; past this the ride is given up, which costs one commit and nothing else.
 */
export const RIDE_WAIT_MS = 1_000;

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
  release: () => void;
  /** The wait is over (or the process stops): it is written alone, not offered to job writes only. */
  expired: boolean;
  timer: NodeJS.Timeout | null;
  resolve(ended: boolean): void;
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
  readonly #waitMs: number;
  readonly #writeAlone: (runId: string) => Promise<unknown>;

  /**
   * @param writeAlone commits the ride of `runId` in a transaction of its own that claims it
   *   (`WriteScope.carryRide`); errors are the caller's to log.
   * @param waitMs how long a ride is offered before it is written alone ({@link RIDE_WAIT_MS}).
   */
  constructor(writeAlone: (runId: string) => Promise<unknown>, waitMs: number = RIDE_WAIT_MS) {
    this.#writeAlone = writeAlone;
    this.#waitMs = waitMs;
  }

  /**
   * Offers a run's final write (replacing an older offer of the same run, which resolves false).
   * @returns whether it took effect: true once a transaction carrying it committed, false when
   * another execution had ended the run first.
   */
  offer(runId: string, state: RunState, write: RideWrite): Promise<boolean> {
    const older = this.#rides.get(runId);
    if (older !== undefined) this.#end(older, false);
    return new Promise<boolean>((resolve) => {
      const ride: Ride = {
        runId,
        write,
        state,
        held: null,
        release: () => undefined,
        expired: false,
        timer: null,
        resolve,
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
   */
  async claim(runId: string): Promise<HeldRide | undefined> {
    for (;;) {
      const ride = this.#rides.get(runId);
      if (ride === undefined) return undefined;
      if (ride.held === null) {
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
    if (error === null || (error instanceof RideLostError && error.runId === ride.runId)) {
      this.#end(ride, error === null);
      return;
    }
    this.#unhold(ride);
    if (ride.expired && ride.timer === null) this.#arm(ride);
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
    await Promise.all(rides.map((ride) => this.#writeAlone(ride.runId).catch(() => undefined)));
  }

  #arm(ride: Ride): void {
    ride.timer = setTimeout(() => {
      ride.timer = null;
      ride.expired = true;
      // A failed write leaves the ride offered: it is tried again a wait later.
      this.#writeAlone(ride.runId).catch(() => {
        if (this.#rides.get(ride.runId) === ride && ride.held === null && ride.timer === null) this.#arm(ride);
      });
    }, this.#waitMs);
    ride.timer.unref();
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
