import {
  type CommittedRows,
  isTerminal,
  type Job,
  type JobId,
  type JobView,
  type TeamEvent,
  TeamEventKind,
  type TeamId,
} from '@agent-teams/core';
import type { EventHub } from '../events/event-hub.js';

/**
 * How long a job's followers stay open after its end was learned by reading the job back (the
 * commit came from another server) before they are ended: that server's last progress notices
 * travel separately (batched for 10 ms, `cluster/progress-sender.ts`) and may still be on the way.
 */
export const REMOTE_SETTLE_MS = 100;

/** One follower of a job: a `jobProgress` subscription, as {@link JobWatches.follow} made it. */
export interface JobFollow {
  /** The job as the server last saw it; valid after {@link JobFollow.start}. */
  readonly job: JobView;
  /**
   * Starts with the job the subscription read (authorized). Calls `ended` at once when the job is
   * already terminal, or already known to be gone.
   */
  start(read: JobView): void;
  /** Stops following (idempotent; `ended` is not called after it). */
  leave(): void;
}

/** Where a watch reads a job back when an event names it without its row; null once it is gone. */
export type LoadJob = (jobId: JobId) => Promise<JobView | null>;

/** Called once when the followed job reached a terminal status (the job) or is gone (null). */
export type JobEnded = (job: JobView | null) => void;

interface Follower {
  readonly ended: JobEnded;
  /** The watch's version when the follower joined (a change since then is read back at start). */
  readonly joined: number;
  started: boolean;
}

/**
 * The current state of the jobs that `jobProgress` subscriptions of one server follow, one watch
 * per job however many subscribe, kept current by the server's committed events.
 *
 * @remarks One event-hub listener for all of them, held only while some job is followed. A
 * JOB_CHANGED of a followed job updates it from the commit's own row (local commits carry it: no
 * read, and before any later progress notice is handed out); without one (another server's
 * commit) the job is read back, one read at a time per job. A TEAM_CHANGED of a followed job's
 * team reads it back too: a deleted team takes its jobs with it. Text deltas never cost a read.
 * A watch ends when its job is terminal or gone, and is dropped with its last follower.
 */
export class JobWatches {
  readonly #watches = new Map<JobId, JobWatch>();
  readonly #hub: EventHub;
  readonly #load: LoadJob;
  #unlisten: (() => void) | null = null;

  constructor(hub: EventHub, load: LoadJob) {
    this.#hub = hub;
    this.#load = load;
  }

  /** How many jobs are followed (tests). */
  get size(): number {
    return this.#watches.size;
  }

  /** Follows `jobId` from now on: call before reading the job, so a change during the read counts. */
  follow(jobId: JobId, ended: JobEnded): JobFollow {
    let watch = this.#watches.get(jobId);
    if (watch === undefined) {
      watch = new JobWatch(jobId, this.#load, (done) => this.#drop(done));
      this.#watches.set(jobId, watch);
      this.#unlisten ??= this.#hub.listen((events, rows) => this.#heard(events, rows));
    }
    return watch.join(ended);
  }

  /**
   * Hands a committed batch to the watches it concerns. A TEAM_CHANGED names only its team, so it
   * goes to every watch of that team (few: only unfinished jobs stay followed), and to those whose
   * job is not read yet (they count it, and read back at start).
   */
  #heard(events: readonly TeamEvent[], rows: CommittedRows | undefined): void {
    for (const event of events) {
      if (event.kind === TeamEventKind.JOB_CHANGED) {
        if (event.jobId !== null) this.#watches.get(event.jobId)?.changed(rows?.jobs.get(event.jobId));
      } else if (event.kind === TeamEventKind.TEAM_CHANGED) {
        for (const watch of this.#watches.values()) {
          if (watch.teamId === null || watch.teamId === event.teamId) watch.changed(undefined);
        }
      }
    }
  }

  #drop(watch: JobWatch): void {
    if (this.#watches.get(watch.id) === watch) this.#watches.delete(watch.id);
    if (this.#watches.size === 0) {
      this.#unlisten?.();
      this.#unlisten = null;
    }
  }
}

/** The followers of one job and the job as last seen. */
class JobWatch {
  readonly id: JobId;
  job: JobView | null = null;
  /** Bumped by every change heard; a read started before a later change is not applied. */
  #version = 0;
  #reading = false;
  #readAgain = false;
  /** Set once the job is terminal or gone: nothing changes after. */
  #final: { readonly job: JobView | null } | null = null;
  #settle: NodeJS.Timeout | null = null;
  readonly #followers = new Set<Follower>();
  readonly #load: LoadJob;
  readonly #dropped: (watch: JobWatch) => void;

  constructor(id: JobId, load: LoadJob, dropped: (watch: JobWatch) => void) {
    this.id = id;
    this.#load = load;
    this.#dropped = dropped;
  }

  get teamId(): TeamId | null {
    return this.job?.teamId ?? null;
  }

  join(ended: JobEnded): JobFollow {
    const follower: Follower = { ended, joined: this.#version, started: false };
    this.#followers.add(follower);
    const watch = this;
    return {
      get job() {
        return watch.job as JobView;
      },
      start: (read) => this.#start(follower, read),
      leave: () => this.#leave(follower),
    };
  }

  /** A change of this job was committed; `row` is the job as that commit stored it, if known. */
  changed(row: Job | undefined): void {
    if (this.#final !== null) return;
    this.#version += 1;
    if (row !== undefined) this.#apply(withoutInput(row), false);
    else if (this.job !== null) void this.#read();
  }

  #start(follower: Follower, read: JobView): void {
    if (!this.#followers.has(follower)) return;
    follower.started = true;
    if (this.#final !== null) {
      this.#end(follower, this.#final.job);
      return;
    }
    // Another follower's start or a committed row may already be newer than this read.
    if (this.job === null) this.#apply(withoutInput(read), false);
    if (this.#final === null && this.#version !== follower.joined) void this.#read();
  }

  async #read(): Promise<void> {
    if (this.#reading) {
      this.#readAgain = true;
      return;
    }
    this.#reading = true;
    try {
      do {
        this.#readAgain = false;
        const version = this.#version;
        const job = await this.#load(this.id);
        // A committed row heard meanwhile is newer than this read; a change without one reads again.
        if (this.#version === version && this.#final === null) this.#apply(job, true);
      } while (this.#readAgain && this.#final === null && this.#followers.size > 0);
    } catch {
      // The job keeps its last known state; the next change of it reads again.
    } finally {
      this.#reading = false;
    }
  }

  /** Takes the job as current; ends the followers once it is terminal or gone. */
  #apply(job: JobView | null, readBack: boolean): void {
    if (job !== null && !isTerminal(job.phase)) {
      this.job = job;
      return;
    }
    if (job !== null) this.job = job;
    this.#final = { job };
    if (job === null || !readBack) {
      this.#endAll();
      return;
    }
    this.#settle = setTimeout(() => this.#endAll(), REMOTE_SETTLE_MS);
    this.#settle.unref();
  }

  #endAll(): void {
    this.#settle = null;
    this.#dropped(this);
    const job = this.#final?.job ?? null;
    for (const follower of [...this.#followers]) if (follower.started) this.#end(follower, job);
  }

  #end(follower: Follower, job: JobView | null): void {
    this.#followers.delete(follower);
    follower.ended(job);
  }

  #leave(follower: Follower): void {
    if (!this.#followers.delete(follower) || this.#followers.size > 0) return;
    if (this.#settle !== null) clearTimeout(this.#settle);
    this.#settle = null;
    this.#dropped(this);
  }
}

/** A committed row without its frozen input (up to ~35 KB), which no field of a progress view shows. */
function withoutInput(job: Job | JobView): JobView {
  if (!('input' in job)) return job;
  const { input: _input, ...view } = job;
  return view;
}
