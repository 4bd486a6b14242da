import {
  type AdmittedJob,
  type AgentCatalog,
  type AgentRuntime,
  type Clock,
  DomainError,
  ErrorCode,
  type EventSink,
  type IdGenerator,
  type Job,
  type JobId,
  type JobLease,
  type Logger,
  type MemberToolPort,
  nowTimestamp,
  planAdmissions,
  type RunId,
  type RunProgress,
  type RuntimeRegistry,
  TeamEventKind,
  TeamStatus,
  type TeamStore,
} from '@agent-teams/core';
import type { ApplyCommands } from './advance-job.js';
import { freezeJob } from './freeze-job.js';
import { JobDriver } from './job-driver.js';
import { JobTargets } from './job-targets.js';
import { RetryBackoff } from './retry-backoff.js';
import { transitionAll, unchanged } from './run-outcome.js';
import type { WakeSink } from './wake-sink.js';
import { WakeTimer } from './wake-timer.js';

/** Tunables of the scheduler. */
export interface SchedulerOptions {
  /** Pass at least this often even when nothing woke us (default 5 s; wake-ups do the real work). */
  readonly safetyNetMs?: number;
  /** Bound of one runtime call (default `Limits.advancementStepMs`, 10 s). */
  readonly stepTimeoutMs?: number;
  /** How long `stop()` waits for in-flight steps (default 8 s). */
  readonly stopTimeoutMs?: number;
  /** This server's lease on the jobs it drives (several servers on one database). */
  readonly lease?: SchedulerLeaseOptions;
}

/**
 * How this server holds the jobs it drives: each active job is driven by exactly one server, the
 * holder of its lease; a server that stops renewing loses its jobs to the others.
 */
export interface SchedulerLeaseOptions {
  /** This server incarnation's id, unique per process start (default `local`). */
  readonly serverId: string;
  /** Shown in `server_leases` for operators. */
  readonly host: string;
  /** A server that has not renewed for this long counts as dead; its jobs are claimed (default 15 s). */
  readonly ttlMs: number;
  /** How often the lease is renewed (default 5 s; must stay well under `ttlMs`). */
  readonly heartbeatMs: number;
  /**
   * True when no other server can share the database (SQLite: one server per file): the first
   * pass takes over every active job at once instead of waiting for a dead holder's lease to expire.
   */
  readonly exclusive?: boolean;
}

/** Leases of a scheduler built without options: one local server, claims only orphans. */
export const DEFAULT_LEASE: SchedulerLeaseOptions = {
  serverId: 'local',
  host: 'local',
  ttlMs: 15_000,
  heartbeatMs: 5_000,
};

/** Progress of a job's run, with the job it belongs to (feeds `jobProgress`). */
export interface JobProgressEvent {
  readonly job: Job;
  readonly progress: RunProgress;
}

/** What {@link createScheduler} is built from. */
export interface SchedulerDeps {
  readonly store: TeamStore;
  readonly runtimes: RuntimeRegistry;
  readonly catalog: AgentCatalog;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** The member tools bound to a job (handed to its runs). */
  readonly tools: (job: Job) => MemberToolPort;
  /** The store's sink, when it was built before the scheduler (see `createWakeSink`). */
  readonly wakeSink?: WakeSink;
  /** Told about runtime progress (text deltas, tool calls) of the jobs being driven. */
  readonly onProgress?: (event: JobProgressEvent) => void;
  /** Called after `stop()` released this server's leases (tell the other servers to claim them). */
  readonly onLeasesReleased?: () => void;
  readonly options?: SchedulerOptions;
}

/** The running scheduler. */
export interface Scheduler {
  /** Runs the first pass (restart reconciliation) and keeps passing on every wake-up. */
  start(): Promise<void>;
  /** Asks for a pass soon; wake-ups coalesce and passes never overlap. */
  wake(): void;
  /**
   * Another server changed something (or released its leases): a pass that claims what is free
   * and drives what it newly holds, without admission.
   */
  nudge(): void;
  /**
   * Resolves once nothing is pending: no pass running or scheduled and no job step queued or
   * running (tests and tools that need a quiescent point; the server never waits on it).
   */
  idle(): Promise<void>;
  /** Stops admitting, waits for in-flight steps (bounded), clears timers, unsubscribes. */
  stop(): Promise<void>;
  /** A sink that wakes this scheduler (for a store built after it). */
  readonly eventSink: EventSink;
  /** Events committed by other servers: steps for the jobs held here that they name. */
  readonly remoteSink: EventSink;
}

const RUN_INDEX_SIZE = 2_000;

/** The error of a step for a job this server does not hold (any more). */
function lostLease(jobId: JobId): DomainError {
  return new DomainError(ErrorCode.STALE_LEASE, `This server no longer holds job ${jobId}.`, { field: 'jobId' });
}

/**
 * Creates the scheduler: on each pass it admits what the planner allows (freezing input and run
 * key in the same transaction) and makes sure every active job is being advanced.
 *
 * @remarks Wakes on committed events, on runtime `settled` notices (which go straight to the job
 * when its run is known) and on one timer: the earliest of the 5-second safety net, the running
 * turns' deadlines and the retry backoffs. Start runs a pass at once, which is also the whole of
 * restart reconciliation: every unfinished job continues from its persisted state.
 */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  const safetyNetMs = deps.options?.safetyNetMs ?? 5_000;
  const stopTimeoutMs = deps.options?.stopTimeoutMs ?? 8_000;
  let started = false;
  let stopped = false;
  let passRunning: Promise<void> | null = null;
  let passAgain = false;
  let passScheduled = false;
  const admission = new RetryBackoff();
  const timer = new WakeTimer(() => wake(), deps.clock);
  const subscriptions = new Map<AgentRuntime, () => void>();
  const runs = new Map<RunId, Job>();
  /** The active jobs of the last pass, by id. */
  let driven = new Map<JobId, Job>();
  const detachSink = deps.wakeSink?.attach(() => wake());
  const lease = deps.options?.lease ?? DEFAULT_LEASE;
  /** The fencing token of every job this server holds, as of the last claim. */
  let leases = new Map<JobId, JobLease>();
  let renewedAtMs: number | null = null;
  let firstClaim = true;
  /** True when the next pass must run admission (set by every local wake-up and the timers). */
  let admitWanted = true;
  let heartbeat: ReturnType<typeof setInterval> | null = null;

  const tctx = () => ({ now: nowTimestamp(deps.clock), ids: deps.ids });
  const apply: ApplyCommands = (jobId, guard, steps) => {
    const held = leases.get(jobId);
    if (held === undefined) return Promise.reject(lostLease(jobId));
    return deps.store.updateJob(jobId, (job) => (guard(job) ? transitionAll(job, steps, tctx()) : unchanged(job)), {
      now: nowTimestamp(deps.clock),
      lease: held,
    });
  };
  async function renew(): Promise<void> {
    const nowMs = deps.clock.nowMs();
    await deps.store.renewServerLease({
      serverId: lease.serverId,
      host: lease.host,
      now: nowTimestamp(deps.clock),
      expiresAtMs: nowMs + lease.ttlMs,
    });
    renewedAtMs = nowMs;
  }
  const renewSafely = () =>
    renew().catch((error: unknown) => deps.logger.error('lease renewal failed', { error: String(error) }));
  const track = (runId: RunId, job: Job): void => {
    runs.delete(runId);
    runs.set(runId, job);
    if (runs.size > RUN_INDEX_SIZE) runs.delete(runs.keys().next().value as RunId);
  };
  const onRuntime = (runtime: AgentRuntime): void => {
    if (stopped || subscriptions.has(runtime)) return;
    subscriptions.set(
      runtime,
      runtime.subscribe((notice) => {
        if (notice.type === 'progress') {
          // By job id first: an instant turn reports tool calls before `start` returns its run id.
          const job = driven.get(notice.progress.jobId) ?? runs.get(notice.progress.runId);
          if (job) deps.onProgress?.({ job, progress: notice.progress });
          return;
        }
        const job = runs.get(notice.runId);
        if (job) driver.request(job);
        else wake();
      }),
    );
  };
  const targets = new JobTargets({ ...deps, onRuntime });
  const stepTimeoutMs = deps.options?.stepTimeoutMs ?? 10_000;
  const holds = (jobId: JobId) => leases.has(jobId);
  const advance = { store: deps.store, targets, clock: deps.clock, apply, stepTimeoutMs, track, holds };
  const driver = new JobDriver({ advance, store: deps.store, clock: deps.clock, logger: deps.logger, timer });

  async function admit(): Promise<readonly AdmittedJob[]> {
    const notBefore = admission.notBefore('admit');
    if (notBefore !== null && notBefore > deps.clock.nowMs()) return [];
    try {
      const agents = new Map((await deps.catalog.list()).map((agent) => [agent.id, agent]));
      const context = tctx();
      const admitted = await deps.store.admit({
        now: context.now,
        serverId: lease.serverId,
        plan: planAdmissions,
        freeze: (ctx) => freezeJob(ctx, agents, deps.runtimes, context),
      });
      admission.succeeded('admit');
      return admitted;
    } catch (error) {
      const retryAt = admission.failed('admit', deps.clock.nowMs());
      deps.logger.error('admission pass failed; retrying', { retryAt, error: String(error) });
      timer.wakeAt(retryAt);
      return [];
    }
  }

  async function pass(): Promise<void> {
    try {
      // Renew before claiming: a claim by a server whose own lease lapsed would be lost at once.
      if (renewedAtMs === null || deps.clock.nowMs() - renewedAtMs >= lease.heartbeatMs) await renew();
      // Only this server's own changes and the timers can make admission necessary: whatever adds
      // a waiting job or frees a slot wakes the server that wrote it. Another server's change
      // (a nudge) only needs the claim, which also picks up leases it released.
      const full = admitWanted;
      admitWanted = false;
      const admitted = full ? await admit() : [];
      if (stopped) return;
      // Start what was just admitted at once, without waiting for the claim's round trips.
      const started = new Set<JobId>();
      for (const entry of admitted) {
        if (entry.lease === undefined) continue;
        leases.set(entry.job.id, entry.lease);
        driven.set(entry.job.id, entry.job);
        started.add(entry.job.id);
        driver.request(entry.job, true);
      }
      const before = leases;
      const held = await deps.store.claimActiveJobs({
        serverId: lease.serverId,
        nowMs: deps.clock.nowMs(),
        takeOver: firstClaim && lease.exclusive === true,
      });
      firstClaim = false;
      leases = new Map(held.map((entry) => [entry.job.id, entry.lease]));
      const active = held.map((entry) => entry.job);
      const teamIds = [...new Set(active.map((job) => job.teamId))];
      const teams = teamIds.length === 0 ? [] : await deps.store.findTeams(teamIds);
      // A disconnected team's active jobs keep their state until the team is reconnected.
      const disconnected = new Set(
        teams.filter((team) => team.status === TeamStatus.DISCONNECTED).map((team) => team.id),
      );
      driven = new Map(active.map((job) => [job.id, job]));
      for (const job of active) {
        if (started.has(job.id) || disconnected.has(job.teamId)) continue;
        // A nudge drives only what it newly holds; jobs held already move on their own signals.
        if (full || !before.has(job.id)) driver.request(job);
      }
    } catch (error) {
      deps.logger.error('scheduler pass failed', { error: String(error) });
    } finally {
      timer.wakeAt(deps.clock.nowMs() + safetyNetMs);
    }
  }

  function runPass(): Promise<void> {
    passScheduled = false;
    const current = pass().finally(() => {
      passRunning = null;
      if (passAgain && !stopped) {
        passAgain = false;
        // A wake-up that arrived meanwhile already asked for admission.
        nudge();
      }
    });
    passRunning = current;
    return current;
  }

  function wake(): void {
    admitWanted = true;
    nudge();
  }

  function nudge(): void {
    if (!started || stopped) return;
    if (passRunning) {
      passAgain = true;
      return;
    }
    if (passScheduled) return;
    passScheduled = true;
    setImmediate(() => {
      passScheduled = false;
      if (stopped) return;
      if (passRunning) passAgain = true;
      else void runPass();
    });
  }

  return {
    async start() {
      if (started) return;
      started = true;
      heartbeat = setInterval(() => void renewSafely(), lease.heartbeatMs);
      heartbeat.unref();
      await runPass();
    },
    wake,
    nudge,
    async idle() {
      const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
      for (;;) {
        if (passRunning) await passRunning;
        else if (passScheduled) await turn();
        else if (driver.busy) await driver.idle();
        else {
          // One more turn lets notices queued by the last step (settled, events) arrive.
          await turn();
          if (!passRunning && !passScheduled && !driver.busy) return;
        }
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      timer.stop();
      if (heartbeat !== null) clearInterval(heartbeat);
      detachSink?.();
      for (const unsubscribe of subscriptions.values()) unsubscribe();
      subscriptions.clear();
      await passRunning;
      const drained = await driver.stop(stopTimeoutMs);
      if (!drained) deps.logger.warn('scheduler stopped with steps still running', { waitedMs: stopTimeoutMs });
      // Steps still running past the wait are fenced off by the release: their writes are refused.
      leases = new Map();
      if (!started) return;
      try {
        await deps.store.releaseServerLeases(lease.serverId);
        deps.onLeasesReleased?.();
      } catch (error) {
        deps.logger.error('releasing leases failed; other servers claim them when they expire', {
          error: String(error),
        });
      }
    },
    eventSink: {
      published(events) {
        if (events.length > 0) wake();
      },
    },
    remoteSink: {
      published(events) {
        let teamChanged = false;
        for (const event of events) {
          const job = event.jobId === null ? undefined : driven.get(event.jobId);
          if (job !== undefined && leases.has(job.id)) driver.request(job);
          if (event.kind === TeamEventKind.TEAM_CHANGED) teamChanged = true;
        }
        // A team reconnected elsewhere: its jobs held here resume driving.
        if (teamChanged) nudge();
      },
    },
  };
}
