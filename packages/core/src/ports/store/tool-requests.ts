/**
 * A member tool call's idempotency key and the hash of what it asked, given to the store write
 * that carries out the call (`Tasks.changeTask`, `TeamLifecycle.interruptTurn`).
 *
 * @remarks The store records it, with what the call answered, in the SAME transaction as the
 * call's effect: a call run again after a crash between that commit and the commit of its result
 * (the `openai` runtime's replay) finds it and answers the first call's outcome instead of acting
 * on what changed since. A refused call records nothing: it changed nothing, so running it again
 * decides afresh.
 */
export interface ToolRequest {
  /** `tool:<memberId>:<request_id>`: one key space per member, so no member replays another's. */
  readonly key: string;
  /** The hash of the call's validated arguments and its tool; another hash under the key is a conflict. */
  readonly fingerprint: string;
}

/** A recorded {@link ToolRequest}: its fingerprint and the id the first call answered with. */
export interface RecordedToolRequest {
  readonly fingerprint: string;
  /** The task written, or the job interrupted; null when the call answered none (an idle member). */
  readonly answerId: string | null;
}
