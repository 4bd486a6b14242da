import type { AdmissionPlan, AdmissionSnapshot } from '../../admission/admission-types.js';
import type { TransitionOutcome } from '../../jobs/job-machine.js';
import type { Job } from '../../model/job.js';
import type { RecordMessage } from '../../model/record.js';
import type { Member, Team } from '../../model/team.js';
import type { TeamMessage } from '../../model/team-message.js';
import type { Timestamp } from '../clock.js';
import type { PublishWindow, TeamEvent } from '../event-sink.js';
import type { JobLease } from './leases.js';

/** Everything needed to freeze one admitted job's input. */
export interface FreezeContext {
  readonly job: Job;
  readonly team: Team;
  readonly members: readonly Member[];
  /** The newest record messages (at most the context count), oldest first. */
  readonly recentRecords: readonly RecordMessage[];
  /**
   * The undelivered team messages of the job's member, oldest first (absent: none). A FREEZE
   * that names them in its input (`TurnInput.messages`) delivers them into this turn: the store
   * marks exactly those delivered, in the same transaction.
   */
  readonly mailbox?: readonly TeamMessage[];
  /**
   * For a WAITING_CHANGE job: the team's events that wake it (see `wakesWaiter`), oldest first,
   * at most `WAKE_CHANGES_MAX + 1` (so the result can say there were more); empty at its deadline.
   */
  readonly changes?: readonly TeamEvent[];
}

/** A job one planning pass admitted, with the admitting server's lease. */
export interface AdmittedJob {
  readonly job: Job;
  /** Present when the pass was given a `serverId`. */
  readonly lease?: JobLease;
}

/** Arguments of {@link Admission.admit}. */
export interface AdmitArgs {
  readonly now: string;
  /** The admitting server: it takes the lease of what it admits. */
  readonly serverId?: string;
  /** Slots per database (`admission.activeJobs`; default `Limits.activeJobs`, 8). */
  readonly capacity?: number;
  readonly plan: (snapshot: AdmissionSnapshot) => AdmissionPlan;
  readonly freeze: (ctx: FreezeContext) => TransitionOutcome;
  /**
   * A hint: the caller saw a job it does not drive change (a request or receipt queued, an
   * answer given), so a job very likely waits for a slot. A store may then skip a cheap check
   * for work that it would otherwise make before taking its planning lock; the pass itself
   * decides the same either way.
   */
  readonly likelyQueued?: boolean;
  /**
   * How many jobs `plan` may leave out however they rank (the scheduler's set-aside jobs, decision
   * 0248): a store that reads only each owner's oldest heads reads this many more, so jobs left
   * out never take the places of the owner's other work.
   */
  readonly leftOut?: number;
  /** Told around the publication of this pass's events (none when it wrote nothing). */
  readonly publishing?: PublishWindow;
}

/** Store role: admission, the one planning step that gives queued and answered jobs a slot. */
export interface Admission {
  /**
   * One planning pass, atomic across every server on the database: reads the
   * {@link AdmissionSnapshot} (active count, overall and per owner, the head QUEUED or ANSWERED
   * job of every idle conversation of a READY team, the head WAITING_CHANGE job whose wait a
   * change or its deadline ended, the persisted round state), calls `plan`, persists the new
   * round state, and applies `freeze` to each admitted job (FREEZE for a QUEUED job, RESUME for
   * an ANSWERED one, WAKE for a waiting one, given its `changes`: `freeze` returns the outcome). With `serverId`, each admitted job
   * is leased to that server (its fence incremented).
   * @returns the admitted jobs, now ADMITTING or RESUMING, with, given `serverId`, the lease the
   * server now holds on each.
   */
  admit(args: AdmitArgs): Promise<readonly AdmittedJob[]>;
  /**
   * The earliest deadline of a WAITING_CHANGE job, or null: the scheduler sets its timer there so
   * a wait that nothing wakes ends on time (a wait a change wakes is admitted by that change's pass).
   */
  nextWaitDeadline(): Promise<Timestamp | null>;
}
