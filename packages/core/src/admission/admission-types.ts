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
  /** Candidates in any order; the planner orders them. */
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
