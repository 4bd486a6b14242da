import {
  type Admission,
  type AdmissionJobError,
  type AdmissionPolicy,
  type AdmitArgs,
  type AdmittedJob,
  type AgentCatalog,
  admissionJobErrorOf,
  type Clock,
  DEFAULT_ADMISSION_POLICY,
  type IdGenerator,
  type Logger,
  nowTimestamp,
  planAdmissions,
  type RuntimeRegistry,
  type TeamEvent,
} from '@agent-teams/core';
import type { PreparedRide } from '../storage/admission-ride.js';
import { freezeJob } from './freeze-job.js';
import { OwnCommits, settles } from './own-commits.js';
import { RetryBackoff } from './retry-backoff.js';
import { SetAsideJobs } from './set-aside-jobs.js';
import type { WakeTimer } from './wake-timer.js';

/**
 * How soon a pass looks again at a wait whose deadline the pass's own admission already saw pass.
 * Such a wait is one admission could not take (every slot busy, its team disconnected): a freed
 * slot or a reconnect wakes a pass anyway, and a timer set to the past would run pass after pass
 * at once. Any other deadline, even one that passed since, gets the timer at its own time.
 */
export const PAST_DEADLINE_RETRY_MS = 1_000;

/** What an {@link AdmissionPass} uses. */
export interface AdmissionPassDeps {
  readonly store: Admission;
  readonly catalog: AgentCatalog;
  readonly runtimes: RuntimeRegistry;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** The admitting server: it takes the lease of what it admits. */
  readonly serverId: string;
  /** Asked to wake the scheduler when a failed admission may be retried. */
  readonly timer: WakeTimer;
  /** Asks for another pass: a commit heard while admitting changed more than what was admitted. */
  readonly wake: () => void;
  /** How slots are shared (default {@link DEFAULT_ADMISSION_POLICY}: 8 slots, 2 kept for others). */
  readonly policy?: AdmissionPolicy;
  /**
   * True when this server is the database's only one (SQLite): every wait then begins in one of
   * its own steps ({@link AdmissionPass.waitBegan}), so once a read found none, none can appear
   * unseen and the waits are not read again until one begins.
   */
  readonly exclusive?: boolean;
}

/**
 * The admission step of a pass: asks the planner (inside the store's transaction) which queued or
 * answered jobs get a slot and freezes each one's turn.
 *
 * @remarks The catalog is read before the transaction, so `freeze` stays synchronous. A failed
 * admission is logged and retried with exponential backoff; until then passes skip it.
 */
export class AdmissionPass {
  readonly #deps: AdmissionPassDeps;
  readonly #backoff = new RetryBackoff();
  /** Jobs whose own admission failed: planned without until their backoff ends. */
  readonly #setAside = new SetAsideJobs();
  #waiting = false;
  /** An exclusive server's last read of the waits found none, and no wait began since. */
  #noWaits = false;
  /** Waits begun so far ({@link waitBegan}): a read that one overtook must not say there are none. */
  #waitsBegun = 0;
  /** When the last admission planned (epoch ms): a deadline not after it was due to that admission. */
  #admittedAtMs: number | null = null;
  #admitting = false;
  /** The admission's own store writes (see {@link hear}). */
  readonly #own = new OwnCommits<'admission'>();
  /** The window every admission write carries (one object: the pass's writes never overlap). */
  readonly #ownWindow = this.#own.window('admission');
  /** The events its own commits published during the current {@link admit}. */
  #heard: TeamEvent[] = [];
  /** Between the COMMIT of an enqueue an admission rode and its events' publication (see {@link hear}). */
  #ride: { readonly admitted: readonly AdmittedJob[]; readonly candidates: number } | null = null;

  constructor(deps: AdmissionPassDeps) {
    this.#deps = deps;
  }

  /**
   * True when the last pass saw a job in `wait_for_change`: then another server's change may wake
   * it, so remote events ask for admission too (decision 0165).
   */
  get waiting(): boolean {
    return this.#waiting;
  }

  /** True while {@link admit} runs: the events its own commit publishes name the jobs it admitted. */
  get admitting(): boolean {
    return this.#admitting;
  }

  /**
   * A job of this server has just started waiting for a change: until the next pass reads the
   * waits again, treat every commit as one that may end it (decision 0165).
   */
  waitBegan(): void {
    this.#waiting = true;
    this.#noWaits = false;
    this.#waitsBegun += 1;
  }

  /**
   * Keeps the events of the admission's own commit instead of letting them wake another pass
   * (@returns false for any other commit's). Once admit knows what it admitted, events that
   * name admitted jobs only are settled; anything else (a receipt for a job it failed) asks for
   * a pass.
   */
  hear(events: readonly TeamEvent[]): boolean {
    const ride = this.#ride;
    // An admission that rode the enqueue (decision 0223): settled like the pass's own, at once.
    if (ride !== null) return settles(ride.admitted, ride.candidates, events);
    if (this.#own.current() === undefined) return false;
    this.#heard.push(...events);
    return true;
  }

  /**
   * Admits what the planner allows; the admitted jobs, leased to this server (none on failure).
   * `likelyQueued`: a job this server does not drive just changed (see `AdmitArgs.likelyQueued`).
   */
  async admit(likelyQueued = false): Promise<readonly AdmittedJob[]> {
    if (this.#backingOff()) return [];
    this.#admitting = true;
    let admitted: readonly AdmittedJob[] = [];
    /** How many jobs wanted a slot in this pass (what the planner saw). */
    let candidates = 0;
    try {
      const now = nowTimestamp(this.#deps.clock);
      const args = await this.#admitArgs(now, likelyQueued, (n) => {
        candidates = n;
      });
      this.#admittedAtMs = Date.parse(now);
      admitted = await this.#deps.store.admit(args);
      this.#succeeded(admitted);
      return admitted;
    } catch (error) {
      this.#failed(error);
      return [];
    } finally {
      this.#admitting = false;
      this.#settleHeard(admitted, candidates);
    }
  }

  /**
   * The admission to run inside a local enqueue's own transaction (decisions 0223 and 0229), or
   * null when it must stay in a pass: while `driven` (the active jobs this server drives) fills
   * every slot, or while admission backs off after a failure. The same planning as {@link admit};
   * `committed` takes the outcome as a pass takes its own. On a database other servers share, the
   * ride admits only when the planning lock is free at that moment (`admitIfFree`).
   */
  async prepareRide(now: string, driven: number): Promise<Omit<PreparedRide, 'active'> | null> {
    // Every slot taken by a job this server drives, as the last pass saw them: a ride would read
    // the whole snapshot to admit nothing (a backlog arriving while the slots are full).
    if (driven >= (this.#deps.policy ?? DEFAULT_ADMISSION_POLICY).activeJobs) return null;
    if (this.#backingOff()) return null;
    let candidates = 0;
    let args: AdmitArgs;
    try {
      args = await this.#admitArgs(now, true, (n) => {
        candidates = n;
      });
    } catch (error) {
      // The catalog failed: never at the request's expense. It commits alone, and admission
      // backs off as after a pass.
      this.#failed(error);
      return null;
    }
    return {
      args,
      committed: ({ admitted, error, skipped }) => {
        // Another transaction held the planning lock: the enqueue's events wake a pass.
        if (skipped) return;
        if (error !== null) {
          // Rolled back alone: the enqueue's events wake a pass, which waits for the backoff.
          this.#failed(error);
          return;
        }
        this.#succeeded(admitted);
        this.#admittedAtMs = Date.parse(now);
        this.#ride = { admitted, candidates };
      },
      published: () => {
        this.#ride = null;
      },
    };
  }

  /**
   * Settles what the admission's own commit published: nothing more to do when it admitted every
   * job that wanted a slot and its events name only those. A pass that left jobs waiting (slots
   * full, or the planner's round) is followed by another, which admits the next ones or finds the
   * slots still full.
   */
  #settleHeard(admitted: readonly AdmittedJob[], candidates: number): void {
    const heard = this.#heard;
    this.#heard = [];
    if (heard.length === 0) return;
    if (!settles(admitted, candidates, heard)) this.#deps.wake();
  }

  /** The arguments of one admission at `now` (the catalog read here); `seen` is told how many candidates it planned. */
  async #admitArgs(now: string, likelyQueued: boolean, seen: (candidates: number) => void): Promise<AdmitArgs> {
    const agents = new Map((await this.#deps.catalog.list()).map((agent) => [agent.id, agent]));
    const policy = this.#deps.policy ?? DEFAULT_ADMISSION_POLICY;
    const context = { now, ids: this.#deps.ids };
    return {
      now,
      likelyQueued,
      serverId: this.#deps.serverId,
      capacity: policy.activeJobs,
      // The jobs `plan` leaves out (at most these): the store reads as many more heads.
      leftOut: this.#setAside.size,
      plan: (snapshot) => {
        // Jobs set aside after their own admission failed wait out their backoff; the rest go on.
        const candidates = this.#setAside.plannable(snapshot.candidates, this.#deps.clock.nowMs());
        seen(candidates.length);
        return planAdmissions(candidates === snapshot.candidates ? snapshot : { ...snapshot, candidates }, policy);
      },
      freeze: (ctx) => freezeJob(ctx, agents, this.#deps.runtimes, context),
      // Only `admit` publishes through it; a ride's writes are the enqueue's (`hear` settles them).
      publishing: this.#ownWindow,
    };
  }

  /** True while admission waits out the backoff of a failure (and so do the reads that follow it). */
  #backingOff(): boolean {
    const notBefore = this.#backoff.notBefore('admit');
    return notBefore !== null && notBefore > this.#deps.clock.nowMs();
  }

  /**
   * Reads the earliest wait deadline and sets the timer to it: a wait that no change ends must
   * still end at its deadline, on time (decision 0165). Called at the end of the pass (after the
   * claim), so the read is not between a commit and the turns it admitted.
   *
   * @remarks On an exclusive server the read is skipped while none can exist (see
   * {@link AdmissionPassDeps.exclusive}): while no job waits, a turn's full passes (its
   * admission's and the one its end wakes) skip the read instead of making it twice per turn.
   */
  async followWaits(): Promise<void> {
    if (this.#noWaits) return;
    // Admission is backing off after a failure: so is this read.
    if (this.#backingOff()) return;
    const begunBefore = this.#waitsBegun;
    try {
      const deadline = await this.#deps.store.nextWaitDeadline();
      // A wait begun while the read ran may be missing from it: it still counts.
      this.#waiting = deadline !== null || this.#waitsBegun !== begunBefore;
      this.#noWaits = deadline === null && this.#deps.exclusive === true && this.#waitsBegun === begunBefore;
      if (deadline !== null) {
        const at = Date.parse(deadline);
        // Due to this pass's admission, which still left it waiting: not again at once.
        const refused = this.#admittedAtMs !== null && at <= this.#admittedAtMs;
        this.#deps.timer.wakeAt(refused ? Math.max(at, this.#deps.clock.nowMs() + PAST_DEADLINE_RETRY_MS) : at);
      }
    } catch (error) {
      this.#failed(error);
    }
  }

  #succeeded(admitted: readonly AdmittedJob[]): void {
    this.#backoff.succeeded('admit');
    this.#setAside.admitted(admitted.map((entry) => entry.job.id));
  }

  /**
   * A failed admission backs off as a whole, unless the failure was one job's own: that job is
   * set aside (and retried after its own backoff), and a pass follows at once for the others.
   */
  #failed(error: unknown): void {
    const failedJob = admissionJobErrorOf(error);
    if (failedJob !== null) {
      this.#setAsideJob(failedJob, error);
      return;
    }
    const retryAt = this.#backoff.failed('admit', this.#deps.clock.nowMs());
    this.#deps.logger.error('admission pass failed; retrying', { retryAt, error: String(error) });
    this.#deps.timer.wakeAt(retryAt);
  }

  #setAsideJob(failed: AdmissionJobError, error: unknown): void {
    const retryAt = this.#setAside.failed(failed.jobId, this.#deps.clock.nowMs());
    const fields = { teamId: failed.teamId, jobId: failed.jobId, retryAt, error: String(error) };
    this.#deps.logger.error('admitting a job failed; it is set aside and retried, the others go on', fields);
    this.#deps.timer.wakeAt(retryAt);
    this.#deps.wake();
  }
}
