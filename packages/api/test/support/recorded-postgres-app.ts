import type { MemberId, OwnerId, Team } from '@agent-teams/core';
import { type MemoryLogger, StaticCatalog } from '@agent-teams/testkit';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import type { App } from '../../src/app/create-app.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { TEST_AGENTS } from '../scheduler/scheduler-harness.js';
import { createFreshPostgres, type FreshPostgres } from './fresh-postgres.js';
import { type RoundTripRecorder, recordRoundTrips } from './pg-round-trips.js';
import { openTestApp, type TestAppOptions } from './test-app.js';

/** An application on a fresh PostgreSQL database whose statements' round trips are recorded. */
export interface RecordedPostgresApp {
  readonly db: FreshPostgres;
  readonly app: App & { readonly logger: MemoryLogger };
  readonly trips: RoundTripRecorder;
  /** Stops the recording, closes the application and drops the database. */
  close(): Promise<void>;
}

/**
 * Opens {@link RecordedPostgresApp}: a fresh database named `name`, the recorder installed before
 * the pool opens (`pg-round-trips.ts`), a pool of 4, random ids, the test agents and `serverId`'s
 * lease; `options` add to or replace those.
 */
export async function openRecordedPostgresApp(
  name: string,
  serverId: string,
  options: TestAppOptions = {},
): Promise<RecordedPostgresApp> {
  const db = await createFreshPostgres(name);
  const trips = recordRoundTrips();
  let app: (App & { readonly logger: MemoryLogger }) | undefined;
  try {
    app = await openTestApp({
      database: await openDatabase(db.url, { poolSize: 4 }),
      ids: createRandomIds(),
      catalog: new StaticCatalog(TEST_AGENTS),
      lease: { serverId },
      ...options,
    });
  } catch (error) {
    trips.stop();
    await db.drop();
    throw error;
  }
  const opened = app;
  return {
    db,
    app: opened,
    trips,
    async close() {
      trips.stop();
      await opened.close();
      await db.drop();
    },
  };
}

/**
 * A new team of `owner` with two members on the test agent `researcher`, its request key `t-<tag>`,
 * once the scheduler is idle: the team, and its members' ids in roster order.
 */
export async function teamOfTwo(
  app: App,
  owner: OwnerId,
  tag: string,
): Promise<{ team: Team; memberIds: [MemberId, MemberId] }> {
  const members = [0, 1].map((i) => ({ name: `m${i}`, agentId: 'researcher' }));
  const team = await app.core.teams.create(owner, { clientRequestId: `t-${tag}`, name: tag, goal: 'Test', members });
  const [first, second] = (await app.core.teams.members([team.id])).map((member) => member.id);
  if (first === undefined || second === undefined) throw new Error(`team ${tag} has no two members`);
  await app.scheduler?.idle();
  return { team, memberIds: [first, second] };
}

/**
 * A connection of its own to `url` holding the planning lock (`scheduler_state`'s row, in an open
 * transaction): sends then commit without their rides, and the pass they wake waits until the
 * caller's `COMMIT`. The caller ends it.
 */
export async function holdPlanningLock(url: string): Promise<pg.Client> {
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query('select round_json from scheduler_state where id = 1 for update');
  return locker;
}

/**
 * {@link openRecordedPostgresApp} for a whole test file: opened before its tests, closed after
 * them. The returned function gives it (throws before it is open).
 */
export function recordedPostgresAppPerFile(
  name: string,
  serverId: string,
  options: TestAppOptions = {},
): () => RecordedPostgresApp {
  let opened: RecordedPostgresApp | undefined;
  beforeAll(async () => {
    opened = await openRecordedPostgresApp(name, serverId, options);
  }, 60_000);
  afterAll(async () => {
    await opened?.close();
  });
  return () => {
    if (opened === undefined) throw new Error(`[test] the application on ${name} is not open`);
    return opened;
  };
}
