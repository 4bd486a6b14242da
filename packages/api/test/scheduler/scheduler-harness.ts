import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentCatalog,
  type AgentRuntime,
  asOwnerId,
  type Core,
  createCore,
  type Job,
  type JobId,
  type Member,
  type Team,
} from '@agent-teams/core';
import { type AgentSpec, DEMO_AGENTS, MemoryLogger, StaticCatalog } from '@agent-teams/testkit';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import { createRuntimeRegistry } from '../../src/adapters/runtime-registry.js';
import { createUnavailableTools } from '../../src/adapters/unavailable-tools.js';
import { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import {
  createScheduler,
  type JobProgressEvent,
  type Scheduler,
  type SchedulerOptions,
} from '../../src/scheduler/create-scheduler.js';
import { createWakeSink } from '../../src/scheduler/wake-sink.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';

export const OWNER = asOwnerId('alice');
const clock = { nowMs: () => Date.now() };

/** The agents of the scheduler tests: the demo three plus a slow one with a 300 ms deadline. */
export const TEST_AGENTS: readonly AgentSpec[] = [...DEMO_AGENTS, { name: 'hasty', timeoutMs: 300 }];

/** Options of {@link openHarness}. */
export interface HarnessOptions {
  /** Reopen an existing file (restart) instead of a new temp dir. */
  readonly file?: string;
  /** Replaces the scripted runtime seen by the scheduler (fault injection). */
  readonly wrap?: (runtime: ScriptedRuntime) => AgentRuntime;
  /** The scheduler's catalog, when it should differ from the core's. */
  readonly schedulerCatalog?: AgentCatalog;
  readonly scheduler?: SchedulerOptions;
}

/** A real SQLite file, store, scripted runtime, core and a started scheduler. */
export interface Harness {
  readonly file: string;
  readonly database: OpenedDatabase;
  readonly store: KyselyTeamStore;
  readonly runtime: ScriptedRuntime;
  readonly core: Core;
  readonly scheduler: Scheduler;
  readonly logger: MemoryLogger;
  /** Progress the scheduler reported, in order. */
  readonly progress: JobProgressEvent[];
  /** Creates a READY team with members of the given agents (names `m0`, `m1`, ...). */
  team(agents: readonly string[]): Promise<{ team: Team; members: Member[] }>;
  /** Sends one request per member, each with `text`. */
  send(team: Team, members: readonly Member[], text: string): Promise<readonly Job[]>;
  job(id: JobId): Promise<Job>;
  /** Stops the scheduler and runtime (as a crash would leave runs) and closes the database. */
  close(): Promise<void>;
}

const dirs: string[] = [];
let counter = 0;

/** Opens a harness; call `close()` and then {@link removeTempDirs} in `afterAll`. */
export async function openHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const file = opts.file ?? join(tempDir(), 'teams.sqlite');
  const database = await openDatabase(file);
  await migrateToLatest(database.db, database.dialect);
  const logger = new MemoryLogger();
  const progress: JobProgressEvent[] = [];
  const ids = createRandomIds();
  const wakeSink = createWakeSink();
  const store = new KyselyTeamStore(database.db, database.dialect, { events: wakeSink, ids });
  const runtime = new ScriptedRuntime({ db: database.db, store, clock, logger, streamIntervalMs: 5 });
  const runtimes = createRuntimeRegistry([opts.wrap ? opts.wrap(runtime) : runtime]);
  const catalog = new StaticCatalog(TEST_AGENTS);
  const core = createCore({ store, catalog, runtimes, clock, ids, logger });
  const scheduler = createScheduler({
    store,
    runtimes,
    catalog: opts.schedulerCatalog ?? catalog,
    clock,
    ids,
    logger,
    tools: () => createUnavailableTools(),
    wakeSink,
    onProgress: (event) => progress.push(event),
    options: opts.scheduler,
  });
  await scheduler.start();
  return {
    file,
    database,
    store,
    runtime,
    core,
    scheduler,
    logger,
    progress,
    async team(agents) {
      counter += 1;
      const members = agents.map((agentId, index) => ({ name: `m${index}`, agentId }));
      const team = await core.teams.create(OWNER, {
        clientRequestId: `team-${counter}`,
        name: `Team ${counter}`,
        goal: 'Test',
        members,
      });
      return { team, members: [...(await core.teams.members([team.id]))] };
    },
    async send(team, members, text) {
      counter += 1;
      return core.requests.send(OWNER, {
        teamId: team.id,
        memberIds: members.map((m) => m.id),
        text,
        clientRequestId: `req-${counter}`,
      });
    },
    async job(id) {
      const [job] = await store.findJobs([id]);
      if (!job) throw new Error(`no job ${id}`);
      return job;
    },
    async close() {
      await scheduler.stop();
      runtime.dispose();
      await database.close();
    },
  };
}

/** Waits until `check` answers a truthy value (polling, with a deadline), and returns it. */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  what: string,
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits until every job reached one of `phases`; returns the jobs. */
export async function waitForPhases(
  h: Harness,
  ids: readonly JobId[],
  phases: readonly string[],
  timeoutMs = 10_000,
): Promise<Job[]> {
  return waitFor(
    async () => {
      const jobs = await h.store.findJobs(ids);
      return jobs.length === ids.length && jobs.every((job) => phases.includes(job.phase)) ? [...jobs] : null;
    },
    `jobs in ${phases.join('/')}`,
    timeoutMs,
  );
}

/** A runtime that delegates to `inner` except for the overridden calls. */
export function wrapRuntime(inner: AgentRuntime, overrides: Partial<Omit<AgentRuntime, 'name'>>): AgentRuntime {
  return {
    name: inner.name,
    ensureConversation: overrides.ensureConversation ?? ((args) => inner.ensureConversation(args)),
    start: overrides.start ?? ((args) => inner.start(args)),
    resume: overrides.resume ?? ((args) => inner.resume(args)),
    poll: overrides.poll ?? ((args) => inner.poll(args)),
    cancel: overrides.cancel ?? ((args) => inner.cancel(args)),
    subscribe: overrides.subscribe ?? ((listener) => inner.subscribe(listener)),
  };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-teams-scheduler-'));
  dirs.push(dir);
  return dir;
}

/** Deletes the temp dirs made by {@link openHarness}. */
export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
