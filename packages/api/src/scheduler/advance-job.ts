import {
  ACTIVE_PHASES,
  type AgentRuntime,
  type Clock,
  ErrorCode,
  isDomainError,
  type Job,
  JobErrorCode,
  type JobId,
  JobPhase,
  type JobReads,
  Limits,
  type RunContext,
  type RunId,
  type RunState,
  RuntimeError,
} from '@agent-teams/core';
import { boundedCall } from '../async/bounded-call.js';
import type { AckGrace } from './ack-grace.js';
import type { JobTargets } from './job-targets.js';
import { type CommandStep, lostStateCommand, outcomeCommand } from './run-outcome.js';

/** Applies commands to a job in one store commit, when `guard` still holds for the fresh job. */
export type ApplyCommands = (
  jobId: JobId,
  guard: (job: Job) => boolean,
  steps: readonly CommandStep[],
) => Promise<{ job: Job; changed: boolean }>;

/** What one advancement step uses. */
export interface AdvanceDeps {
  readonly store: Pick<JobReads, 'findJobs'>;
  readonly targets: JobTargets;
  readonly clock: Clock;
  readonly apply: ApplyCommands;
  readonly stepTimeoutMs: number;
  /** Told which job a run belongs to (settled notices and progress are keyed by run id). */
  readonly track: (runId: RunId, job: Job) => void;
  /** True while this server holds the job's lease; a job it does not hold is left alone. */
  readonly holds: (jobId: JobId) => boolean;
  /** True while no other server can have taken this server's jobs (`ServerLease.surelyHeld`). */
  readonly surelyHeld: () => boolean;
  /** The started runs whose acknowledgement waits for them to settle (decision 0210). */
  readonly acks: AckGrace;
}

/** When the scheduler should look at the job again without being told (its turn deadline). */
export interface StepReport {
  readonly wakeAtMs: number | null;
  /** Step this job again after this many milliseconds (its held-back acknowledgement), if set. */
  readonly againInMs?: number;
}

const NOTHING: StepReport = { wakeAtMs: null };

/**
 * Advances one active job by one step from its persisted state (the same code serves normal
 * progress and restart reconciliation): ADMITTING starts the run with the frozen key and input,
 * RUNNING polls it, RESUMING submits the persisted answer with its own key, CANCELLING makes
 * sure the run stops. Runtime calls are bounded; their errors propagate to the caller, which
 * classifies them. Nothing is reported complete that a runtime did not report complete.
 */
export async function advanceJob(d: AdvanceDeps, jobId: JobId, fresh?: Job, known?: Job): Promise<StepReport> {
  // Another server drives it: touching its run here (a poll replays a scripted run) would run it twice.
  if (!d.holds(jobId)) return NOTHING;
  // `fresh`: the job as a transaction of this server just stored it (admission); `known`: as the
  // last local commit that named it stored it, where no other writer exists (`KnownJobs`). Every
  // write below re-checks its guard against the row it reads under the team lock anyway.
  const job = fresh ?? known ?? (await d.store.findJobs([jobId]))[0];
  if (!job || !ACTIVE_PHASES.includes(job.phase)) return NOTHING;
  const target = await d.targets.resolve(job);
  if (!target.ok) {
    await d.apply(job.id, (fresh) => ACTIVE_PHASES.includes(fresh.phase), [
      () => ({ type: 'FAIL', error: target.error, code: JobErrorCode.AGENT_UNAVAILABLE }),
    ]);
    return NOTHING;
  }
  const { runtime, context } = target;
  const call = <T>(what: string, fn: () => Promise<T>): Promise<T> =>
    boundedCall(fn, d.stepTimeoutMs, `${runtime.name} ${what}`);
  // Just admitted here: its key was never submitted, so the runtime need not look it up.
  const step: Step = { d, job, runtime, context, call, firstCall: fresh !== undefined };
  // In RUNNING, ADMITTING and RESUMING `updatedAt` is when the current turn was started or resumed
  // (nothing else touches the job then), so the deadline survives a restart.
  const timeoutMs = target.agent.timeoutMs > 0 ? target.agent.timeoutMs : Limits.defaultTurnTimeoutMs;
  const deadline = Date.parse(job.updatedAt) + timeoutMs;
  const later = (state: RunState): StepReport => ({ wakeAtMs: state.state === 'running' ? deadline : null });

  if (job.phase !== JobPhase.CANCELLING && d.clock.nowMs() >= deadline) {
    const same = (fresh: Job) => fresh.phase === job.phase && fresh.updatedAt === job.updatedAt;
    const { changed } = await d.apply(job.id, same, [() => ({ type: 'TIME_OUT', timeoutMs })]);
    if (changed && job.runId !== null) {
      const runId = job.runId;
      await call('cancel', () => runtime.cancel({ runId, context }));
    }
    return NOTHING;
  }

  switch (job.phase) {
    case JobPhase.ADMITTING: {
      const runId = await startFrozen(step);
      if (runId === null) return NOTHING;
      const unacknowledged = (fresh: Job) =>
        fresh.runId === null &&
        fresh.runKey === job.runKey &&
        (fresh.phase === JobPhase.ADMITTING || fresh.phase === JobPhase.CANCELLING);
      let state: RunState;
      try {
        state = await call('poll', () => runtime.poll({ runId, context }));
      } catch (error) {
        // Parked on refused credentials (the team disconnects): the run exists and waits for
        // reconnectTeam, so it is acknowledged first, and the job shows RUNNING whether the
        // refusal came within the acknowledgement's grace or after it.
        if (error instanceof RuntimeError && error.kind === 'access') {
          if (job.runKey !== null) d.acks.forget(job.runKey);
          try {
            await persisted(step, runId);
            await d.apply(job.id, unacknowledged, [() => ({ type: 'ACKNOWLEDGE', runId })]);
          } catch (failed) {
            // The job is another server's now: that is what the driver must hear.
            if (isDomainError(failed, ErrorCode.STALE_LEASE)) throw failed;
            // Otherwise the disconnect matters more: the job stays unacknowledged, as a crash
            // here would leave it, and is acknowledged by the step after reconnectTeam.
          }
        }
        throw error;
      }
      // A run still going is acknowledged a moment later (or at its `settled` notice, whichever
      // comes first), so a turn that ends meanwhile commits its start and outcome together.
      if (state.state === 'running' && job.runKey !== null && d.acks.defer(job.runKey)) {
        return { wakeAtMs: deadline, againInMs: d.acks.graceMs };
      }
      if (job.runKey !== null) d.acks.forget(job.runKey);
      await persisted(step, runId);
      await d.apply(job.id, unacknowledged, [
        () => ({ type: 'ACKNOWLEDGE', runId }),
        (fresh) => outcomeCommand(fresh.phase, state),
      ]);
      return later(state);
    }
    case JobPhase.RUNNING: {
      const runId = job.runId;
      if (runId === null) return failMissing(d, job, 'run id');
      d.track(runId, job);
      const state = await call('poll', () => runtime.poll({ runId, context }));
      if (state.state === 'running') return later(state);
      const sameRun = (fresh: Job) =>
        fresh.runId === runId && (fresh.phase === JobPhase.RUNNING || fresh.phase === JobPhase.CANCELLING);
      await d.apply(job.id, sameRun, [(fresh) => outcomeCommand(fresh.phase, state)]);
      return NOTHING;
    }
    case JobPhase.RESUMING: {
      const runId = await resumePending(step);
      if (runId === null) return NOTHING;
      const state = await call('poll', () => runtime.poll({ runId, context }));
      await persisted(step, runId);
      const key = job.pendingResponse?.runKey;
      const samePending = (fresh: Job) =>
        fresh.pendingResponse?.runKey === key &&
        (fresh.phase === JobPhase.RESUMING || fresh.phase === JobPhase.CANCELLING);
      await d.apply(job.id, samePending, [
        () => ({ type: 'RESUMED', runId }),
        (fresh) => outcomeCommand(fresh.phase, state),
      ]);
      return later(state);
    }
    case JobPhase.CANCELLING:
      await confirmCancel(step);
      return NOTHING;
    default:
      return NOTHING;
  }
}

type Call = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

/** One advancement step of one job on its runtime, with its bounded runtime call. */
interface Step {
  readonly d: AdvanceDeps;
  readonly job: Job;
  readonly runtime: AgentRuntime;
  readonly context: RunContext;
  readonly call: Call;
  /**
   * The job as this server's admission just stored it (`JobDriver.request` with `fresh`): it
   * entered ADMITTING or RESUMING in that commit, so no call with its key was made yet.
   */
  readonly firstCall: boolean;
}

/** Starts (again) the frozen turn with its key: the runtime answers the run it already has. */
function startFrozen(s: Step): Promise<RunId | null> {
  const { input, runKey } = s.job;
  const request =
    input === null || runKey === null
      ? null
      : () => s.runtime.start({ runKey, input, context: s.context, firstCall: firstCall(s, JobPhase.ADMITTING) });
  return submit(s, 'start', 'frozen input', request);
}

/**
 * True when the step's key was never submitted: the job entered `phase` in this server's admission
 * just now, and no other server can have claimed it since (one that did may have run it already).
 */
function firstCall(s: Step, phase: JobPhase): boolean {
  return s.firstCall && s.job.phase === phase && s.d.surelyHeld();
}

/** Submits the persisted answer with its own key. */
function resumePending(s: Step): Promise<RunId | null> {
  const { pendingResponse: response, runId } = s.job;
  const request =
    typeof response?.runKey !== 'string' || runId === null
      ? null
      : () =>
          s.runtime.resume({
            runKey: response.runKey,
            runId,
            response,
            context: s.context,
            firstCall: firstCall(s, JobPhase.RESUMING),
          });
  return submit(s, 'resume', 'pending answer', request);
}

/** Makes one idempotent runtime call and tracks the run it answers; fails a job missing what it needs. */
async function submit(
  s: Step,
  what: 'start' | 'resume',
  missing: string,
  request: (() => Promise<{ runId: RunId }>) | null,
): Promise<RunId | null> {
  if (request === null) {
    await failMissing(s.d, s.job, missing);
    return null;
  }
  const { runId } = await s.call(what, request);
  s.d.track(runId, s.job);
  return runId;
}

/**
 * Makes a run durable before its id is recorded on the job (`AgentRuntime.persist`): a runtime
 * may hold a new run in memory until its first step, and a restart must find every recorded run.
 */
async function persisted(s: Step, runId: RunId): Promise<void> {
  const persist = s.runtime.persist?.bind(s.runtime);
  if (persist !== undefined) await s.call('persist', () => persist({ runId, context: s.context }));
}

/**
 * CANCELLING: first make the run that may exist known (a start or answer whose acknowledgement
 * was lost is submitted again with its key, then recorded), then ask it to stop and confirm once
 * it no longer runs. A still-running run is confirmed later (its `settled` notice wakes us).
 */
async function confirmCancel(s: Step): Promise<void> {
  const { d, job, runtime, context, call } = s;
  const cancelling = (fresh: Job) => fresh.phase === JobPhase.CANCELLING;
  let runId = job.runId;
  if (runId === null && job.input !== null && job.runKey !== null) {
    const started = await startFrozen(s);
    if (started === null) return;
    runId = started;
    await persisted(s, started);
    await d.apply(job.id, (fresh) => cancelling(fresh) && fresh.runId === null, [
      () => ({ type: 'ACKNOWLEDGE', runId: started }),
    ]);
  }
  // An answer without its run key (stored text that read as something else) is no answer to
  // submit: the run already known is what gets cancelled, as with none.
  if (typeof job.pendingResponse?.runKey === 'string') {
    const resumed = await resumePending(s);
    if (resumed === null) return;
    runId = resumed;
    await persisted(s, resumed);
    const key = job.pendingResponse.runKey;
    await d.apply(job.id, (fresh) => cancelling(fresh) && fresh.pendingResponse?.runKey === key, [
      () => ({ type: 'RESUMED', runId: resumed }),
    ]);
  }
  if (runId !== null) {
    const stopping = runId;
    d.track(stopping, job);
    let state = await call('poll', () => runtime.poll({ runId: stopping, context }));
    if (state.state === 'running') {
      await call('cancel', () => runtime.cancel({ runId: stopping, context }));
      state = await call('poll', () => runtime.poll({ runId: stopping, context }));
    }
    if (state.state === 'running') return;
  }
  await d.apply(job.id, (fresh) => cancelling(fresh) && fresh.runId === runId, [() => ({ type: 'CANCEL_CONFIRMED' })]);
}

async function failMissing(d: AdvanceDeps, job: Job, what: string): Promise<StepReport> {
  await d.apply(job.id, (fresh) => fresh.phase === job.phase, [() => lostStateCommand(what)]);
  return NOTHING;
}
