import {
  type AgentDefinition,
  asAgentId,
  asOwnerId,
  type Core,
  type Job,
  type JobId,
  Limits,
  type Logger,
  type Member,
  type OwnerId,
  type Team,
  type TeamEvent,
  type TeamStore,
} from '@agent-teams/core';
import { createConfigCatalog } from '../../src/adapters/config-catalog.js';
import type { HttpSettings } from '../../src/app/app-options.js';
import { type App, createApp } from '../../src/app/create-app.js';
import { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import type { Scheduler } from '../../src/scheduler/create-scheduler.js';
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
  /** Called when the runtime's `resume` is entered (an answer or a woken wait), likewise. */
  readonly onResume?: (jobId: JobId, atMs: number) => void;
  /** Called after every commit that published events, before anyone else hears of it. */
  readonly onEvents?: (events: readonly TeamEvent[]) => void;
  /** Owner tokens and the HTTP settings, for a benchmark that serves GraphQL. */
  readonly tokens?: ReadonlyMap<string, string>;
  readonly http?: HttpSettings;
}

/** The application as `createApp` builds it for `serve`, without listening, over an opened database. */
export interface BenchStack {
  readonly app: App;
  readonly database: OpenedDatabase;
  readonly store: TeamStore;
  readonly runtime: ScriptedRuntime;
  readonly core: Core;
  readonly scheduler: Scheduler;
  /** The runtimes by name (the watched scripted runtime). */
  readonly runtimes: App['runtimes'];
  /** Creates `count` READY teams of `size` members for `owner` (agents in rotation). */
  teams(owner: OwnerId, count: number, size: number): Promise<{ team: Team; members: Member[] }[]>;
  /** Number of unfinished jobs (partial index; cheap). */
  unfinished(): Promise<number>;
  /** Stops the scheduler and the runtime and closes the database. */
  close(): Promise<void>;
}

/** Only errors, prefixed, so a broken benchmark says why. */
export const BENCH_LOGGER: Logger = {
  info: () => {},
  warn: () => {},
  error: (message, fields) => console.error(`[agent-teams/bench] ${message}`, fields ?? ''),
};

let teamCounter = 0;

/**
 * Builds the application exactly as `serve` does (`createApp`: system clock, random ids, config
 * catalog, the store's events waking the scheduler), one server without the cross-server feed,
 * with the scripted runtime told about every start. The scheduler is not started: call
 * `scheduler.start()`.
 */
export async function openBenchStack(database: OpenedDatabase, opts: BenchStackOptions = {}): Promise<BenchStack> {
  const onStart = opts.onStart;
  const onResume = opts.onResume;
  const onEvents = opts.onEvents;
  let runtime: ScriptedRuntime | null = null;
  const app = await createApp({
    database,
    catalog: createConfigCatalog(BENCH_AGENTS),
    logger: BENCH_LOGGER,
    cluster: false,
    ...(onEvents ? { events: { published: onEvents } } : {}),
    ...(opts.tokens ? { tokens: opts.tokens } : {}),
    // One owner drives everything as fast as it can: the benchmarks measure the engine, not the limiter.
    http: { rateLimit: null, ...opts.http },
    runtimes: ({ clock, logger, rides }) => {
      const scripted = new ScriptedRuntime({ db: database.db, dialect: database.dialect, clock, logger, rides });
      runtime = scripted;
      const at = (hook: ((jobId: JobId, atMs: number) => void) | undefined) =>
        hook && ((jobId: JobId) => hook(jobId, performance.now()));
      return [watchStarts(scripted, at(onStart), at(onResume))];
    },
  });
  const { core, store, scheduler } = app;
  if (runtime === null || scheduler === null) throw new Error('incomplete bench stack');
  return {
    app,
    database,
    store,
    runtime,
    core,
    scheduler,
    runtimes: app.runtimes,
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
    close: () => app.close(),
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
