import type { ConversationId, JobId, OwnerId, TeamId } from '../model/ids.js';

/** A job that could be admitted now: the oldest unfinished job of an idle conversation. */
export interface AdmissionCandidate {
  readonly jobId: JobId;
  readonly owner: OwnerId;
  readonly teamId: TeamId;
  readonly conversationId: ConversationId;
  /** Global creation order; older first within an owner. */
  readonly seq: number;
}

/**
 * The planner's round-robin state, persisted between passes (in the database, so it holds
 * across servers). `rotation` is the order owners are served in; `served` the owners already
 * served in the current, unfinished round, an owner once per admission (so up to its weight).
 */
export interface RoundState {
  readonly rotation: readonly OwnerId[];
  readonly served: readonly OwnerId[];
}

/** What a planning pass sees. */
export interface AdmissionSnapshot {
  /** Jobs holding a slot now (ADMITTING, RUNNING, RESUMING, CANCELLING), across the database. */
  readonly active: number;
  /**
   * The same jobs counted per owner (owners without one are absent). Stores always give it;
   * without it, per-owner caps count only what this pass admits.
   */
  readonly activeByOwner?: ReadonlyMap<OwnerId, number>;
  /**
   * Candidates in any order; the planner orders them. Of the heads that wait to start or to take
   * an answer, a store may offer each owner only its oldest {@link headsPerOwner} (all when it
   * has fewer); the plan is the same as with all of them (`plan-admissions.ts`).
   */
  readonly candidates: readonly AdmissionCandidate[];
  readonly round: RoundState;
  /** Slots per database (8). */
  readonly capacity: number;
}

/** The planner's answer: jobs to admit, in admission order, and the next round state. */
export interface AdmissionPlan {
  readonly admit: readonly JobId[];
  readonly round: RoundState;
}

/** The round state of a fresh database. */
export const EMPTY_ROUND: RoundState = { rotation: [], served: [] };

/**
 * How many waiting heads of each owner a snapshot must offer at least (the oldest ones, or all
 * when the owner has fewer): one more than the free slots.
 *
 * @remarks A plan admits at most the free slots, one head per admission, so an owner's heads past
 * that many are never reached; the one more tells the planner and `settledRound` that the owner
 * still has work after the pass, as the full list would. Reading only these keeps a pass from
 * carrying every conversation with work out of the database (decision 0226).
 */
export function headsPerOwner(capacity: number, active: number): number {
  return Math.max(0, capacity - active) + 1;
}
