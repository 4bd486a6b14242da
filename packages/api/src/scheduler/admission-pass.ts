import {
  type Admission,
  type AdmissionPolicy,
  type AdmittedJob,
  type AgentCatalog,
  type Clock,
  DEFAULT_ADMISSION_POLICY,
  type IdGenerator,
  type Logger,
  nowTimestamp,
  planAdmissions,
  type RuntimeRegistry,
} from '@agent-teams/core';
import { freezeJob } from './freeze-job.js';
import { RetryBackoff } from './retry-backoff.js';
import type { WakeTimer } from './wake-timer.js';

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
  /** How slots are shared (default {@link DEFAULT_ADMISSION_POLICY}: 8 slots, 2 kept for others). */
  readonly policy?: AdmissionPolicy;
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
  #waiting = false;
  #admitting = false;

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
   * Admits what the planner allows; the admitted jobs, leased to this server (none on failure).
   * `likelyQueued`: a job this server does not drive just changed (see `AdmitArgs.likelyQueued`).
   */
  async admit(likelyQueued = false): Promise<readonly AdmittedJob[]> {
    const { clock } = this.#deps;
    const notBefore = this.#backoff.notBefore('admit');
    if (notBefore !== null && notBefore > clock.nowMs()) return [];
    this.#admitting = true;
    try {
      const agents = new Map((await this.#deps.catalog.list()).map((agent) => [agent.id, agent]));
      const context = { now: nowTimestamp(clock), ids: this.#deps.ids };
      const policy = this.#deps.policy ?? DEFAULT_ADMISSION_POLICY;
      const admitted = await this.#deps.store.admit({
        now: context.now,
        likelyQueued,
        serverId: this.#deps.serverId,
        capacity: policy.activeJobs,
        plan: (snapshot) => planAdmissions(snapshot, policy),
        freeze: (ctx) => freezeJob(ctx, agents, this.#deps.runtimes, context),
      });
      this.#backoff.succeeded('admit');
      return admitted;
    } catch (error) {
      this.#failed(error);
      return [];
    } finally {
      this.#admitting = false;
    }
  }

  /**
   * Reads the earliest wait deadline and sets the timer to it: a wait that no change ends must
   * still end at its deadline, on time (decision 0165). Called at the end of the pass (after the
   * claim), so the read is not between a commit and the turns it admitted.
   */
  async followWaits(): Promise<void> {
    // Admission is backing off after a failure: so is this read.
    const notBefore = this.#backoff.notBefore('admit');
    if (notBefore !== null && notBefore > this.#deps.clock.nowMs()) return;
    try {
      const deadline = await this.#deps.store.nextWaitDeadline();
      this.#waiting = deadline !== null;
      if (deadline !== null) this.#deps.timer.wakeAt(Date.parse(deadline));
    } catch (error) {
      this.#failed(error);
    }
  }

  #failed(error: unknown): void {
    const retryAt = this.#backoff.failed('admit', this.#deps.clock.nowMs());
    this.#deps.logger.error('admission pass failed; retrying', { retryAt, error: String(error) });
    this.#deps.timer.wakeAt(retryAt);
  }
}
