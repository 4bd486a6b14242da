import { type Clock, type Logger, nowTimestamp } from '@agent-teams/core';
import type { OpenedDatabase } from './open-database.js';
import { RIDE_WAIT_MS, RunRides } from './run-rides.js';
import { runWrite, type StoreContext } from './write-transaction.js';

/**
 * The rides of one database (`run-rides.ts`): a ride not carried by a job write within `waitMs`
 * is committed in a transaction of its own that claims it, as the runtime's write was before.
 */
export function openRunRides(
  database: Pick<OpenedDatabase, 'db' | 'dialect'>,
  clock: Clock,
  waitMs: number | undefined = RIDE_WAIT_MS,
  logger: Logger | null = null,
): RunRides {
  const rides: RunRides = new RunRides(
    (runId) => runWrite(ctx, nowTimestamp(clock), (scope) => scope.carryRide(runId)),
    waitMs ?? RIDE_WAIT_MS,
    logger,
  );
  const ctx: StoreContext = { db: database.db, dialect: database.dialect, sink: null, ids: null, rides };
  return rides;
}
