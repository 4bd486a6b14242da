import {
  ACTIVE_PHASES,
  type Admission,
  type AdmissionPolicy,
  type AgentCatalog,
  type Clock,
  type EventSink,
  type IdGenerator,
  type Job,
  type JobId,
  JobPhase,
  type JobReads,
  type JobWrites,
  type Leases,
  type Logger,
  type MemberToolPort,
  nowTimestamp,
  type RunId,
  type RuntimeRegistry,
  type TeamEvent,
  TeamEventKind,
  type TeamReads,
  type TeamWrites,
} from '@agent-teams/core';
import { CoalescedTask } from '../async/coalesced-task.js';
import type { EnqueueAdmission } from '../storage/admission-ride.js';
import { ACK_GRACE_MS, AckGrace } from './ack-grace.js';
import { AdmissionPass } from './admission-pass.js';
import type { ApplyCommands } from './advance-job.js';
import { offerRides } from './enqueue-ride.js';
import { JobDriver } from './job-driver.js';
import { JobTargets } from './job-targets.js';
import { KnownJobs } from './known-jobs.js';
import { OwnCommits, ownCommitEvent } from './own-commits.js';
import { transitionAll, unchanged } from './run-outcome.js';
import { runPass } from './run-pass.js';
import { RunWatch } from './run-watch.js';
import { DEFAULT_LEASE, type SchedulerLeaseOptions, ServerLease } from './server-lease.js';
import { WakeTimer } from './wake-timer.js';

export type { SchedulerLeaseOptions } from './server-lease.js';

/** Tunables of the scheduler. */
export interface SchedulerOptions {
  /** Pass at least this often even when nothing woke us (default 5 s; wake-ups do the real work). */
  readonly safetyNetMs?: number;
  /** Bound of one runtime call (default `Limits.advancementStepMs`, 10 s). */
  readonly stepTimeoutMs?: number;
  /**
   * How long the acknowledgement of a started run waits for the run to settle (default
   * {@link ACK_GRACE_MS}, 40 ms; 0 acknowledges at once). Decision 0210.
   */
  readonly ackGraceMs?: number;
  /** How long `stop()` waits for in-flight steps (default 8 s). */
  readonly stopTimeoutMs?: number;
  /** This server's lease on the jobs it drives (several servers on one database). */
  readonly lease?: SchedulerLeaseOptions;
  /** How slots are shared (`admission` in the configuration file; default: fair, 8 slots, 2 kept for others). */
  readonly admission?: AdmissionPolicy;
}

/** The store roles the scheduler uses: admission, leases, fenced job writes and a few reads. */
export type SchedulerStore = Admission &
  Leases &
  Pick<JobWrites, 'updateJob'> &
  Pick<JobReads, 'findJobs'> &
  Pick<TeamReads, 'findTeams' | 'findMembers'> &
  Pick<TeamWrites, 'setTeamStatus'>;

/** What {@link createScheduler} is built from. */
export interface SchedulerDeps {
  readonly store: SchedulerStore;
  readonly runtimes: RuntimeRegistry;
  readonly catalog: AgentCatalog;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** The member tools bound to a job (handed to its runs). */
  readonly tools: (job: Job) => MemberToolPort;
  /** Told at the start of every pass whether it admits (`full`) or only claims (metrics). */
  readonly onPass?: (full: boolean) => void;
  /** Told how many jobs a claim took over from other servers, when it took any (metrics). */
  readonly onTakeover?: (count: number) => void;
  /** Called after `stop()` released this server's leases (tell the other servers to claim them). */
  readonly onLeasesReleased?: () => void;
  readonly options?: SchedulerOptions;
}

/** The running scheduler. */
export interface Scheduler {
  /** Runs the first pass (restart reconciliation) and keeps passing on every wake-up. */
  start(): Promise<void>;
  /** Asks for a pass soon, with admission; wake-ups coalesce and passes never overlap. */
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
  /** Stops admitting, waits for in-flight steps (bounded), releases the leases, unsubscribes. */
  stop(): Promise<void>;
  /** Local commits: wake this scheduler (with admission). */
  readonly eventSink: EventSink;
  /** Events committed by other servers: steps for the jobs held here that they name. */
  readonly remoteSink: EventSink;
  /** Admission offered to ride each local enqueue's transaction (decisions 0223 and 0229). */
  readonly enqueueAdmission: EnqueueAdmission;
}

/**
 * Creates the scheduler from its parts: the pass loop (one coalesced pass at a time), the server
 * lease with its heartbeat, the admission step, the job driver (one step at a time per job) and
 * the run watch that routes runtime notices to jobs.
 *
 * @remarks Wakes on committed events, on runtime `settled` notices (which go straight to the job
 * when its run is known) and on one timer: the earliest of the 5-second safety net, the running
 * turns' deadlines and the retry backoffs. Start runs a pass at once, which is also the whole of
 * restart reconciliation: every unfinished job continues from its persisted state.
 */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { store, clock, logger } = deps;
  const safetyNetMs = deps.options?.safetyNetMs ?? 5_000;
  const stopTimeoutMs = deps.options?.stopTimeoutMs ?? 8_000;
  const lease = new ServerLease({ ...deps, options: deps.options?.lease ?? DEFAULT_LEASE });
  const timer = new WakeTimer(() => wake(), clock);
  const watch = new RunWatch((job) => (job ? driver.request(job) : wake()));
  /** The job steps' own writes (see `eventSink`). */
  const stepWrites = new OwnCommits<JobId>();
  const apply: ApplyCommands = async (jobId, guard, steps) => {
    const fence = lease.fenceOf(jobId);
    const now = nowTimestamp(clock);
    const context = { now, ids: deps.ids };
    const result = await store.updateJob(
      jobId,
      (job) => (guard(job) ? transitionAll(job, steps, context) : unchanged(job)),
      { now, lease: fence, publishing: stepWrites.window(jobId) },
    );
    // Its own events woke nothing (see `eventSink`): a step that leaves the active phases frees
    // a slot (or starts a wait), which admission must see.
    if (result.changed && result.job.phase === JobPhase.WAITING_CHANGE) admission.waitBegan();
    // The pass a freed slot needs is for other jobs: a turn of the event loop later, behind the
    // delivery of this commit to the subscribers waiting for this job's outcome (decision 0220).
    if (result.changed && !ACTIVE_PHASES.includes(result.job.phase)) setImmediate(wake);
    return result;
  };
  const targets = new JobTargets({ ...deps, onRuntime: (runtime) => watch.watch(runtime) });
  const advance = {
    store,
    targets,
    clock,
    apply,
    stepTimeoutMs: deps.options?.stepTimeoutMs ?? 10_000,
    track: (runId: RunId, job: Job) => watch.track(runId, job),
    holds: (jobId: JobId) => lease.holds(jobId),
    surelyHeld: () => lease.surelyHeld,
    acks: new AckGrace(deps.options?.ackGraceMs ?? ACK_GRACE_MS),
  };
  // Alone on its database, every write of a job is a local commit heard here (decision 0240).
  const known = lease.options.exclusive === true ? new KnownJobs() : undefined;
  const driver = new JobDriver({ advance, store, clock, logger, timer, ...(known ? { known } : {}) });
  const admission = new AdmissionPass({
    ...deps,
    serverId: lease.options.serverId,
    exclusive: lease.options.exclusive === true,
    timer,
    wake: () => wake(),
    ...(deps.options?.admission ? { policy: deps.options.admission } : {}),
  });
  /** The active jobs of the last pass, by id. */
  const driven = new Map<JobId, Job>();
  /** The jobs started since the last claim (see `PassContext.started`). */
  const started = new Map<JobId, Job>();
  /** What passes and the rides of enqueues share to start and track the jobs they admit. */
  const held = { lease, driver, driven, started };
  let running = false;
  let stopped = false;
  /** True when the next pass must run admission (every local wake-up and the timers set it). */
  let admitWanted = true;
  /** True when a local commit since the last pass changed a job not driven here (likely queued). */
  let likelyQueued = false;
  const passes = new CoalescedTask(
    async () => {
      const full = admitWanted;
      const likely = likelyQueued;
      admitWanted = false;
      likelyQueued = false;
      deps.onPass?.(full);
      try {
        await runPass({ ...held, store, admission, full, likelyQueued: likely, stopped: () => stopped });
      } catch (error) {
        logger.error('scheduler pass failed', { error: String(error) });
      } finally {
        timer.wakeAt(clock.nowMs() + safetyNetMs);
      }
    },
    { defer: (start) => setImmediate(start) },
  );

  /** True when the events are those of a job step's own write, naming no other job. */
  function stepExplains(events: readonly TeamEvent[]): boolean {
    const jobId = stepWrites.current();
    return jobId !== undefined && events.every((event) => ownCommitEvent(event, (id) => id === jobId));
  }

  function wake(): void {
    admitWanted = true;
    nudge();
  }

  function nudge(): void {
    if (running && !stopped) passes.request();
  }

  const enqueueAdmission = offerRides(admission, held, { accepting: () => running && !stopped, wake, logger });

  return {
    enqueueAdmission,
    async start() {
      if (running) return;
      running = true;
      lease.startHeartbeat();
      // The first pass (its claim takes over this server's jobs) before the server listens, not the
      // passes its work asks for: a backlog of quick jobs chains those for as long as it lasts.
      const first = passes.nextRun();
      passes.request();
      await first;
    },
    wake,
    nudge,
    async idle() {
      const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
      for (;;) {
        if (passes.busy) await passes.settled();
        else if (driver.busy) await driver.idle();
        else {
          // One more turn lets notices queued by the last step (settled, events) arrive.
          await turn();
          if (!passes.busy && !driver.busy) return;
        }
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      timer.stop();
      watch.stop();
      await passes.stop();
      const drained = await driver.stop(stopTimeoutMs);
      if (!drained) logger.warn('scheduler stopped with steps still running', { waitedMs: stopTimeoutMs });
      // Steps still running past the wait are fenced off by the release: their writes are refused.
      if (!running) {
        lease.drop();
        return;
      }
      if (await lease.release()) deps.onLeasesReleased?.();
    },
    eventSink: {
      published(events, rows) {
        if (events.length === 0) return;
        known?.heard(events, rows);
        // Commits whose bearing on admission is known wake nothing: the admission's own (judged
        // once it knows what it admitted) and a job step's own change of its job. Unless a job
        // waits for a change: then any event may end that wait (decision 0165).
        if (!admission.waiting && (admission.hear(events) || stepExplains(events))) return;
        // A new request or receipt, or an answer, changes a job no step here drives: admission
        // will very likely find it, so its pass may skip the check for work (one read less).
        // Not the events of this server's own admission: they name the jobs it just admitted.
        for (const event of admission.admitting ? [] : events) {
          if (event.kind === TeamEventKind.JOB_CHANGED && event.jobId !== null && !driven.has(event.jobId)) {
            likelyQueued = true;
            break;
          }
        }
        wake();
      },
    },
    remoteSink: {
      published(events) {
        // A change committed elsewhere may end a wait: admission decides (decision 0165). While a
        // pass runs, `waiting` may not know yet of a wait that pass has just seen begin, so a
        // change arriving then asks for one more admission too (else only the safety net would).
        if (events.length > 0 && (admission.waiting || passes.busy)) admitWanted = true;
        let teamChanged = false;
        for (const event of events) {
          const job = event.jobId === null ? undefined : driven.get(event.jobId);
          if (job !== undefined && lease.holds(job.id)) driver.request(job);
          if (event.kind === TeamEventKind.TEAM_CHANGED) teamChanged = true;
        }
        // A team reconnected elsewhere: its jobs held here resume driving.
        if (teamChanged || admitWanted) nudge();
      },
    },
  };
}
