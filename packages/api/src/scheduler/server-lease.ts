import {
  type ClaimedJobs,
  type Clock,
  type JobId,
  type JobLease,
  type LeasedJob,
  type Leases,
  type Logger,
  nowTimestamp,
  staleLease,
  type TakenOverJob,
} from '@agent-teams/core';

/**
 * How many job ids the takeover log line lists: its `count` says how many moved, and a server
 * taking over a dead peer's hundreds of jobs must not write a line of kilobytes.
 */
export const TAKEOVER_LOGGED_JOB_IDS = 20;

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
   * claim takes over every active job at once instead of waiting for a dead holder's lease to expire.
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

/**
 * This server's lease and the fencing tokens of the jobs it holds: the heartbeat that keeps the
 * lease alive, the claim that takes over orphaned jobs, and the release on shutdown.
 *
 * @remarks Renewal comes before every claim (a claim by a server whose own lease lapsed would be
 * lost at once); the heartbeat renews in between. After {@link release} nothing is held, so every
 * write a late step still attempts is refused as STALE_LEASE.
 */
export class ServerLease {
  readonly options: SchedulerLeaseOptions;
  readonly #store: Leases;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #held = new Map<JobId, JobLease>();
  /** The jobs {@link hold} was given while a {@link claim} ran (null: no claim running). */
  #heldDuringClaim: Map<JobId, LeasedJob> | null = null;
  #renewedAtMs: number | null = null;
  #firstClaim = true;
  #heartbeat: NodeJS.Timeout | null = null;
  readonly #onTakeover: ((count: number) => void) | undefined;

  constructor(deps: {
    store: Leases;
    clock: Clock;
    logger: Logger;
    options: SchedulerLeaseOptions;
    /** Told how many jobs each claim took over, when it took any (metrics). */
    onTakeover?: (count: number) => void;
  }) {
    this.options = deps.options;
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#onTakeover = deps.onTakeover;
  }

  /** Starts renewing every `heartbeatMs` (the interval never keeps the process alive). */
  startHeartbeat(): void {
    if (this.#heartbeat !== null) return;
    this.#heartbeat = setInterval(() => {
      this.#renew().catch((error: unknown) => this.#logger.error('lease renewal failed', { error: String(error) }));
    }, this.options.heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Renews the lease when the last renewal is a heartbeat old (or there was none). */
  async renewIfDue(): Promise<void> {
    const last = this.#renewedAtMs;
    if (last === null || this.#clock.nowMs() - last >= this.options.heartbeatMs) await this.#renew();
  }

  /**
   * True once an exclusive server's first claim took every active job over: from then on every job
   * it holds was admitted by its own passes or by admissions that rode its enqueues.
   */
  get takenOver(): boolean {
    return this.options.exclusive === true && !this.#firstClaim;
  }

  /** Records the lease of a job this server just admitted. */
  hold(entry: LeasedJob): void {
    this.#held.set(entry.job.id, entry.lease);
    // A claim running now may have read before this job's admission committed (one that rode an
    // enqueue, decision 0223): it must not forget the job.
    this.#heldDuringClaim?.set(entry.job.id, entry);
  }

  /**
   * True while no other server can have claimed a job from this one: it is alone on the database
   * (`takenOver`), or its last renewal is under half the TTL old. Half, so another server's
   * clock running ahead still finds the lease unexpired. A server stalled past that may have
   * lost its jobs without knowing it yet.
   */
  get surelyHeld(): boolean {
    if (this.takenOver) return true;
    const last = this.#renewedAtMs;
    return last !== null && this.#clock.nowMs() - last < this.options.ttlMs / 2;
  }

  /** True while this server holds the job. */
  holds(jobId: JobId): boolean {
    return this.#held.has(jobId);
  }

  /** The fencing token of a held job, or a STALE_LEASE error for a job not held (any more). */
  fenceOf(jobId: JobId): JobLease {
    const held = this.#held.get(jobId);
    if (held === undefined) throw staleLease();
    return held;
  }

  /**
   * Claims every orphaned active job (all of them on the first claim of an exclusive server) and
   * returns every active job this server holds now; what it held before and lost is forgotten.
   *
   * @remarks A claim that took jobs over logs one `took over jobs` line (the jobs of a crashed or
   * stalled server moved here); a claim that took nothing logs nothing, so passes stay silent.
   */
  async claim(): Promise<readonly LeasedJob[]> {
    const during = new Map<JobId, LeasedJob>();
    this.#heldDuringClaim = during;
    let answer: ClaimedJobs;
    try {
      answer = await this.#store.claimActiveJobs({
        serverId: this.options.serverId,
        nowMs: this.#clock.nowMs(),
        takeOver: this.#firstClaim && this.options.exclusive === true,
        // Alone on the database and taken over: nobody else can hold, release or orphan a job, so
        // every later claim only reads what this server holds (no write transaction per pass).
        heldOnly: !this.#firstClaim && this.options.exclusive === true,
      });
    } finally {
      if (this.#heldDuringClaim === during) this.#heldDuringClaim = null;
    }
    this.#firstClaim = false;
    if (answer.takenOver.length > 0) this.#reportTakeover(answer.takenOver);
    const { held } = answer;
    const claimed = new Set(held.map((entry) => entry.job.id));
    const all = [...held, ...[...during.values()].filter((entry) => !claimed.has(entry.job.id))];
    this.#held = new Map(all.map((entry) => [entry.job.id, entry.lease]));
    return all;
  }

  /** Stops the heartbeat and forgets every held job (late writes are refused from now on). */
  drop(): void {
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
    this.#held = new Map();
  }

  /** Gives the jobs up in the store, so the other servers claim them at once; true on success. */
  async release(): Promise<boolean> {
    this.drop();
    try {
      await this.#store.releaseServerLeases(this.options.serverId);
      return true;
    } catch (error) {
      this.#logger.error('releasing leases failed; other servers claim them when they expire', {
        error: String(error),
      });
      return false;
    }
  }

  /** The one log line (and metric) of a claim that moved jobs here: how many, from whom, which. */
  #reportTakeover(taken: readonly TakenOverJob[]): void {
    const fromServers = [...new Set(taken.flatMap((job) => (job.fromServer === null ? [] : [job.fromServer])))];
    this.#logger.info('took over jobs', {
      count: taken.length,
      fromServers,
      jobIds: taken.slice(0, TAKEOVER_LOGGED_JOB_IDS).map((job) => job.jobId),
    });
    this.#onTakeover?.(taken.length);
  }

  async #renew(): Promise<void> {
    const nowMs = this.#clock.nowMs();
    await this.#store.renewServerLease({
      serverId: this.options.serverId,
      host: this.options.host,
      now: nowTimestamp(this.#clock),
      expiresAtMs: nowMs + this.options.ttlMs,
    });
    this.#renewedAtMs = nowMs;
  }
}
