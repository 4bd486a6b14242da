import {
  ACTIVE_PHASES,
  type Clock,
  ErrorCode,
  isDomainError,
  type Job,
  type JobId,
  type Logger,
  nowTimestamp,
  RuntimeError,
  TeamStatus,
  type TeamWrites,
} from '@agent-teams/core';
import { CoalescedTask } from '../async/coalesced-task.js';
import { TeamQueues } from '../async/team-queues.js';
import { type AdvanceDeps, advanceJob } from './advance-job.js';
import type { KnownJobs } from './known-jobs.js';
import { RetryBackoff } from './retry-backoff.js';
import type { WakeTimer } from './wake-timer.js';

/** What {@link JobDriver} uses besides the advancement step's own dependencies. */
export interface JobDriverDeps {
  readonly advance: AdvanceDeps;
  readonly store: Pick<TeamWrites, 'setTeamStatus'>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly timer: WakeTimer;
  /** The jobs as this server's last commit stored them, where that is exact (`KnownJobs`); else absent. */
  readonly known?: KnownJobs;
}

/**
 * Makes sure every active job is being driven: one step at a time per job, steps of one team in
 * a serial queue, different teams independent.
 *
 * @remarks Failure policy (one place): a `transient` runtime error or any unexpected error (a
 * database write, a bug) is logged with team and job id and retried with exponential backoff,
 * keeping the job's state and slot; `rejected` fails the job; `access`/`ambiguous` disconnect the
 * team and keep the job as it is, never completed by assumption. A request for a job whose step
 * is running is remembered and run right after, so a `settled` notice is never lost.
 */
export class JobDriver {
  readonly #deps: JobDriverDeps;
  readonly #queues = new TeamQueues();
  readonly #backoff = new RetryBackoff();
  /** One coalesced step per job with a step queued or running. */
  readonly #steps = new Map<JobId, CoalescedTask>();
  /** Steps asked for later (a held-back acknowledgement), by job, until their timer fires or a step comes first. */
  readonly #later = new Map<
    JobId,
    { readonly timer: NodeJS.Timeout; readonly done: () => void; readonly ended: Promise<void> }
  >();
  #stopped = false;

  constructor(deps: JobDriverDeps) {
    this.#deps = deps;
  }

  /**
   * Queues a step for `job` unless one is queued or running (then it runs once more after).
   * `fresh`: the job is exactly as just stored, so the first step may skip reading it again.
   */
  request(job: Job, fresh = false): void {
    // This step sees the job as it is now: a step asked for later is not needed any more (a run
    // still held back asks again). A turn that settled within the grace costs no second step.
    this.#dropLater(job.id);
    if (this.#stopped) return;
    let step = this.#steps.get(job.id);
    if (step === undefined) {
      let stored: Job | undefined = fresh ? job : undefined;
      const task = new CoalescedTask(
        () =>
          this.#queues.enqueue(job.teamId, async () => {
            const given = stored;
            stored = undefined;
            await this.#step(job, given);
          }),
        {
          onIdle: () => {
            if (this.#steps.get(job.id) === task) this.#steps.delete(job.id);
          },
        },
      );
      step = task;
      this.#steps.set(job.id, task);
    }
    step.request();
  }

  /** True while a step of `jobId` is queued or running (asked for and not over yet). */
  stepping(jobId: JobId): boolean {
    return this.#steps.has(jobId);
  }

  /** True while a step is queued, running or asked for later. */
  get busy(): boolean {
    return this.#steps.size > 0 || this.#queues.size > 0 || this.#later.size > 0;
  }

  /** Waits until no step is queued, running or asked for later (steps requested meanwhile included). */
  async idle(): Promise<void> {
    while (this.busy) {
      const later = [...this.#later.values()].map((entry) => entry.ended);
      await Promise.all([...this.#steps.values()].map((step) => step.settled()).concat(later));
      await this.#queues.drain(60_000);
    }
  }

  /** Steps `job` again after `ms` (only this job: its `settled` notice may come first). */
  #stepLater(job: Job, ms: number): void {
    this.#dropLater(job.id);
    let done = () => {};
    const ended = new Promise<void>((resolve) => {
      done = resolve;
    });
    const timer = setTimeout(() => this.request(job), ms);
    timer.unref();
    this.#later.set(job.id, { timer, done, ended });
  }

  /** Forgets the step asked for later of a job, if any (its timer fired, or another step came first). */
  #dropLater(jobId: JobId): void {
    const later = this.#later.get(jobId);
    if (later === undefined) return;
    this.#later.delete(jobId);
    clearTimeout(later.timer);
    later.done();
  }

  /** Stops taking steps; waits for the running ones, at most `timeoutMs`. */
  async stop(timeoutMs: number): Promise<boolean> {
    this.#stopped = true;
    return this.#queues.drain(timeoutMs);
  }

  /**
   * One step of a job. Its log lines name the job themselves (`jobId`, `teamId` in their fields),
   * as the runtimes' do: no async context carries them (decision 0236).
   */
  async #step(job: Job, stored: Job | undefined): Promise<void> {
    // Requested while an earlier step ran (that step then asked for later): this one supersedes it.
    this.#dropLater(job.id);
    // Backing off after a failure: the timer asks again once the wait is over.
    const notBefore = this.#backoff.notBefore(job.id);
    if (notBefore !== null && notBefore > this.#deps.clock.nowMs()) {
      this.#deps.timer.wakeAt(notBefore);
      return;
    }
    try {
      // Not just stored by this server's admission: the job as its last local commit stored it,
      // where that is exact, saves the step's read (decision 0240).
      const known = stored === undefined ? this.#deps.known?.get(job.id) : undefined;
      const report = await advanceJob(this.#deps.advance, job.id, stored, known);
      this.#backoff.succeeded(job.id);
      if (report.wakeAtMs !== null) this.#deps.timer.wakeAt(report.wakeAtMs);
      if (report.againInMs !== undefined) this.#stepLater(job, report.againInMs);
    } catch (error) {
      this.#deps.known?.drop(job.id);
      try {
        await this.#handle(job, error);
      } catch (secondary) {
        this.#retry(job, secondary, 'recovering from a failed step failed');
      }
    }
  }

  async #handle(job: Job, error: unknown): Promise<void> {
    if (isDomainError(error, ErrorCode.STALE_LEASE)) {
      // Another server claimed the job (this one was paused or cut off past its lease): it is theirs.
      this.#deps.logger.warn('job lost to another server; not driving it any more', {
        teamId: job.teamId,
        jobId: job.id,
      });
      this.#backoff.succeeded(job.id);
      return;
    }
    if (!(error instanceof RuntimeError)) {
      this.#retry(job, error, 'scheduler step failed; retrying');
      return;
    }
    const fields = { teamId: job.teamId, jobId: job.id, kind: error.kind, error: error.message };
    switch (error.kind) {
      case 'transient':
        this.#retry(job, error, 'runtime call failed transiently; retrying with the same key');
        return;
      case 'rejected':
        this.#deps.logger.warn('runtime rejected the job', fields);
        await this.#deps.advance.apply(job.id, (fresh) => ACTIVE_PHASES.includes(fresh.phase), [
          () => ({ type: 'FAIL', error: `The agent runtime rejected the job: ${error.message}` }),
        ]);
        this.#backoff.succeeded(job.id);
        return;
      case 'access':
      case 'ambiguous':
        this.#deps.logger.warn('runtime lost access or answered ambiguously; team disconnected', fields);
        await this.#deps.store.setTeamStatus(job.teamId, TeamStatus.DISCONNECTED, nowTimestamp(this.#deps.clock));
        this.#backoff.succeeded(job.id);
        return;
    }
  }

  #retry(job: Job, error: unknown, message: string): void {
    const notBefore = this.#backoff.failed(job.id, this.#deps.clock.nowMs());
    this.#deps.logger.error(message, { teamId: job.teamId, jobId: job.id, retryAt: notBefore, error: describe(error) });
    this.#deps.timer.wakeAt(notBefore);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
