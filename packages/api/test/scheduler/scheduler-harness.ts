import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentCatalog,
  type AgentRuntime,
  asOwnerId,
  type Core,
  type EventSink,
  type Job,
  type JobId,
  type Member,
  type Team,
  type TeamStore,
} from '@agent-teams/core';
import { type AgentSpec, DEMO_AGENTS, type MemoryLogger, StaticCatalog } from '@agent-teams/testkit';
import { afterAll, afterEach, beforeEach, vi } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import type { App } from '../../src/app/create-app.js';
import type { JobProgressNotice } from '../../src/events/progress-hub.js';
import type { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import type { Scheduler, SchedulerOptions } from '../../src/scheduler/create-scheduler.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { eventually, openTestApp } from '../support/test-app.js';

export const OWNER = asOwnerId('alice');

/** The agents of the scheduler tests: the demo three plus a slow one with a 300 ms deadline. */
export const TEST_AGENTS: readonly AgentSpec[] = [...DEMO_AGENTS, { name: 'hasty', timeoutMs: 300 }];

/** Options of {@link openHarness}. */
export interface HarnessOptions {
  /** Reopen an existing file (restart) instead of a new temp dir. */
  readonly file?: string;
  /** Replaces the scripted runtime the application runs (fault injection). */
  readonly wrap?: (runtime: ScriptedRuntime) => AgentRuntime;
  /** The agent catalog (default: {@link TEST_AGENTS}). */
  readonly catalog?: AgentCatalog;
  readonly scheduler?: Omit<SchedulerOptions, 'lease'>;
  /** How long a run's final write waits for its job write (`AppOptions.rideWaitMs`). */
  readonly rideWaitMs?: number;
  /** Told every local commit before the application's own listeners (`AppOptions.events`). */
  readonly events?: EventSink;
}

/** The application (`createApp`) on a real SQLite file with the scripted runtime, started. */
export interface Harness {
  readonly app: App;
  readonly file: string;
  readonly database: OpenedDatabase;
  readonly store: TeamStore;
  readonly runtime: ScriptedRuntime;
  readonly core: Core;
  readonly scheduler: Scheduler;
  readonly logger: MemoryLogger;
  /** Progress the application published, in order. */
  readonly progress: JobProgressNotice[];
  /** Creates a READY team with members of the given agents (names `m0`, `m1`, ...). */
  team(agents: readonly string[]): Promise<{ team: Team; members: Member[] }>;
  /** Sends one request per member, each with `text`. */
  send(team: Team, members: readonly Member[], text: string): Promise<readonly Job[]>;
  job(id: JobId): Promise<Job>;
  /** Stops the application: the scheduler releases its leases, runs in flight are abandoned. */
  close(): Promise<void>;
}

const dirs: string[] = [];
/** Harnesses opened and not closed yet (see {@link closeHarnesses}). */
const opened = new Set<Harness>();
let counter = 0;

/** Opens a harness; call `close()` and then {@link removeTempDirs} in `afterAll`. */
export async function openHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const file = opts.file ?? join(tempDir(), 'teams.sqlite');
  let runtime: ScriptedRuntime | null = null;
  const app = await openTestApp({
    database: file,
    ids: createRandomIds(),
    catalog: opts.catalog ?? new StaticCatalog(TEST_AGENTS),
    ...(opts.wrap ? { wrapRuntime: opts.wrap } : {}),
    onRuntime: (built) => {
      runtime = built;
    },
    ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
    ...(opts.rideWaitMs !== undefined ? { rideWaitMs: opts.rideWaitMs } : {}),
    ...(opts.events ? { events: opts.events } : {}),
  });
  const progress: JobProgressNotice[] = [];
  app.progress.listen((notice) => progress.push(notice));
  const { core, store, scheduler, database } = app;
  if (runtime === null || scheduler === null || database === null) throw new Error('incomplete harness');
  const harness: Harness = {
    app,
    file,
    database,
    store,
    runtime,
    core,
    scheduler,
    logger: app.logger,
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
      opened.delete(harness);
      await app.close();
    },
  };
  opened.add(harness);
  return harness;
}

/** Closes every harness opened and not closed yet (a test that failed midway leaves some). */
export async function closeHarnesses(): Promise<void> {
  for (const harness of [...opened]) await harness.close().catch(() => undefined);
}

/**
 * Gives each test of the file a fresh harness (`set` receives it before the test); every harness
 * a test opened is closed after it, and the temp dirs after the file.
 */
export function harnessPerTest(set: (h: Harness) => void): void {
  beforeEach(async () => set(await openHarness()));
  afterEach(closeHarnesses);
  afterAll(removeTempDirs);
}

/** Waits until `check` answers a truthy value (polling, with a deadline), and returns it. */
export function waitFor<T>(check: () => Promise<T> | T, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  return eventually(async () => (await check()) || undefined, what, timeoutMs) as Promise<NonNullable<T>>;
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
    ...(overrides.persist !== undefined || inner.persist !== undefined
      ? { persist: overrides.persist ?? ((args) => inner.persist?.(args) ?? Promise.resolve()) }
      : {}),
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

/**
 * Counts the store's `findJobs` calls that ask for any of `jobIds()` (the scheduler reads through
 * the store it shares with the application); `vi.restoreAllMocks()` ends the count.
 */
export function countJobReads(store: TeamStore, jobIds: () => readonly JobId[]): { reads: () => number } {
  let reads = 0;
  const original = store.findJobs.bind(store);
  vi.spyOn(store, 'findJobs').mockImplementation((ids) => {
    if (ids.some((id) => jobIds().includes(id))) reads += 1;
    return original(ids);
  });
  return { reads: () => reads };
}
