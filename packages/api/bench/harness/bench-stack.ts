import {
  type AgentDefinition,
  asAgentId,
  asOwnerId,
  type Core,
  createCore,
  type Job,
  type JobId,
  Limits,
  type Logger,
  type Member,
  type OwnerId,
  type RuntimeRegistry,
  type Team,
  type TeamEvent,
} from '@agent-teams/core';
import { createConfigCatalog } from '../../src/adapters/config-catalog.js';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import { createRuntimeRegistry } from '../../src/adapters/runtime-registry.js';
import { createSystemClock } from '../../src/adapters/system-clock.js';
import { createUnavailableTools } from '../../src/adapters/unavailable-tools.js';
import { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import { createScheduler, type Scheduler } from '../../src/scheduler/create-scheduler.js';
import { createWakeSink } from '../../src/scheduler/wake-sink.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { watchStarts } from './start-watch.js';

/** The agents of the benchmarks: the three demo agents on the scripted runtime. */
export const BENCH_AGENTS: readonly AgentDefinition[] = ['researcher', 'reviewer', 'writer'].map((name) => ({
  id: asAgentId(name),
  name,
  title: name,
  description: `${name} (benchmark)`,
  runtime: 'scripted',
  timeoutMs: Limits.defaultTurnTimeoutMs,
  settings: {},
}));

/** Options of {@link openBenchStack}. */
export interface BenchStackOptions {
  /** Called when the runtime's `start` is entered, with the job and `performance.now()`. */
  readonly onStart?: (jobId: JobId, atMs: number) => void;
  /** Called after every commit that published events. */
  readonly onEvents?: (events: readonly TeamEvent[]) => void;
}

/** The production wiring of `main.ts` without the HTTP server, over an opened database. */
export interface BenchStack {
  readonly database: OpenedDatabase;
  readonly store: KyselyTeamStore;
  readonly runtime: ScriptedRuntime;
  readonly core: Core;
  readonly scheduler: Scheduler;
  /** The runtime registry the core and scheduler use (the wrapped runtime when `onStart` is set). */
  readonly runtimes: RuntimeRegistry;
  /** Creates `count` READY teams of `size` members for `owner` (agents in rotation). */
  teams(owner: OwnerId, count: number, size: number): Promise<{ team: Team; members: Member[] }[]>;
  /** Number of unfinished jobs (partial index; cheap). */
  unfinished(): Promise<number>;
  /** Stops the scheduler and the runtime and closes the database. */
  close(): Promise<void>;
}

const silent: Logger = {
  info: () => {},
  warn: () => {},
  error: (message, fields) => console.error(`[agent-teams/bench] ${message}`, fields ?? ''),
};

let teamCounter = 0;

/**
 * Builds store, scripted runtime, core and scheduler exactly as `startAgentTeams` does (system
 * clock, random ids, config catalog, the store's events waking the scheduler), migrating the
 * database first. The scheduler is not started: call `scheduler.start()`.
 */
export async function openBenchStack(database: OpenedDatabase, opts: BenchStackOptions = {}): Promise<BenchStack> {
  await migrateToLatest(database.db, database.dialect);
  const clock = createSystemClock();
  const ids = createRandomIds();
  const wakeSink = createWakeSink();
  const onEvents = opts.onEvents;
  const store = new KyselyTeamStore(database.db, database.dialect, {
    ids,
    events: {
      published(events) {
        wakeSink.published(events);
        onEvents?.(events);
      },
    },
  });
  const runtime = new ScriptedRuntime({ db: database.db, store, clock, logger: silent });
  const onStart = opts.onStart;
  const seen = watchStarts(runtime, onStart && ((jobId) => onStart(jobId, performance.now())));
  const runtimes = createRuntimeRegistry([seen]);
  const catalog = createConfigCatalog(BENCH_AGENTS);
  const core = createCore({ store, catalog, runtimes, clock, ids, logger: silent });
  const scheduler = createScheduler({
    store,
    runtimes,
    catalog,
    clock,
    ids,
    logger: silent,
    tools: () => createUnavailableTools(),
    wakeSink,
  });
  return {
    database,
    store,
    runtime,
    core,
    scheduler,
    runtimes,
    async teams(owner, count, size) {
      const made: { team: Team; members: Member[] }[] = [];
      for (let i = 0; i < count; i += 1) {
        teamCounter += 1;
        const team = await core.teams.create(owner, {
          clientRequestId: `bench-team-${teamCounter}`,
          name: `Bench team ${teamCounter}`,
          goal: 'Measure the engine',
          members: Array.from({ length: size }, (_, index) => ({
            name: `m${index}`,
            agentId: BENCH_AGENTS[index % BENCH_AGENTS.length]?.id as string,
          })),
        });
        made.push({ team, members: [...(await core.teams.members([team.id]))] });
      }
      return made;
    },
    async unfinished() {
      const row = await database.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('unfinished', '=', 1)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async close() {
      await scheduler.stop();
      runtime.dispose();
      await database.close();
    },
  };
}

/** The owner id of benchmark owner number `index`. */
export function benchOwner(index: number): OwnerId {
  return asOwnerId(`bench-owner-${index}`);
}

/** Sends `text` to every member of a team; resolves when the core accepted (committed) it. */
export function sendToAll(
  core: Core,
  owner: OwnerId,
  target: { team: Team; members: Member[] },
  key: string,
  text: string,
): Promise<readonly Job[]> {
  return core.requests.send(owner, {
    teamId: target.team.id,
    memberIds: target.members.map((member) => member.id),
    text,
    clientRequestId: key,
  });
}
