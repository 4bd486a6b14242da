import type { ConversationId, JobId } from '@agent-teams/core';
import type { MessageDraft, OpenAiRunDoc, PersistedMessage } from './openai-run-store.js';

/** What writing a new run takes: its row and its first messages (the turn's input, or an answer). */
export interface RunBegin {
  readonly runKey: string;
  readonly runId: string;
  readonly conversationId: ConversationId;
  readonly jobId: JobId;
  readonly doc: OpenAiRunDoc;
  readonly messages: readonly MessageDraft[];
  /** When the run began: its row's `created_at`, whichever write carries it. */
  readonly now: string;
}

/** A begun run not written yet, and the queue of writes that may carry it. */
interface Staged {
  readonly begin: RunBegin;
  /** Settles when the write holding the turn to carry the begin is done (one at a time). */
  turn: Promise<void>;
  /** Its execution failed: kept for `persist` (which replays it), shown to no other turn. */
  orphaned: boolean;
}

/** Orphaned runs kept at most (the oldest is forgotten first; each took a failed write to make). */
export const ORPHANED_RUNS_KEPT = 100;

/**
 * Runs begun in this process and not written yet (decision 0220): a new run's row and first
 * messages go into the transaction of its first step (the model's answer), so a quick turn
 * commits once instead of twice; `persist` writes them alone when the scheduler is about to
 * record the run's id first.
 *
 * @remarks Nothing is lost by waiting: until the begin is written the job that started the run
 * is still unacknowledged in the database, so after a crash the scheduler starts the turn again
 * with the same key, exactly as it does for a run whose answer was not written yet. Writes that
 * may carry a begin take turns ({@link carry}), so exactly one of them writes it.
 */
export class StagedRuns {
  readonly #staged = new Map<string, Staged>();

  /** Holds a new run in memory until a write carries it. */
  stage(begin: RunBegin): void {
    this.#staged.set(begin.runId, { begin, turn: Promise.resolve(), orphaned: false });
  }

  /**
   * Keeps a run whose execution failed before writing it: `persist` still writes it (the
   * scheduler then replays it), but no other turn of its conversation sees its messages, since
   * its job may end without that (a timeout). At most {@link ORPHANED_RUNS_KEPT}.
   */
  orphan(runId: string): void {
    const staged = this.#staged.get(runId);
    if (staged === undefined) return;
    staged.orphaned = true;
    const orphans = [...this.#staged].filter(([, entry]) => entry.orphaned);
    if (orphans.length > ORPHANED_RUNS_KEPT) this.#staged.delete(orphans[0]?.[0] as string);
  }

  /** True while the run's begin is held in memory (not written yet). */
  has(runId: string): boolean {
    return this.#staged.has(runId);
  }

  /** Forgets a run's begin without writing it (its execution ended, or the process stops). */
  drop(runId: string): void {
    this.#staged.delete(runId);
  }

  /**
   * Runs `write` with the run's begin if it is still unwritten (else with null), one write per
   * run at a time. `write` resolves `carried: true` once the begin is in the database (it wrote it,
   * or found the run there); the begin stays held when `write` throws.
   */
  async carry<T>(
    runId: string,
    write: (begin: RunBegin | null) => Promise<{ result: T; carried: boolean }>,
  ): Promise<T> {
    const staged = this.#staged.get(runId);
    if (staged === undefined) return (await write(null)).result;
    const previous = staged.turn;
    let release = () => {};
    staged.turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await previous;
      const begin = this.#staged.get(runId) === staged ? staged.begin : null;
      const { result, carried } = await write(begin);
      if (begin !== null && carried && this.#staged.get(runId) === staged) this.#staged.delete(runId);
      return result;
    } finally {
      release();
    }
  }

  /** The first messages of a run still held in memory, as they will be stored (steps from 0). */
  messagesOf(runId: string): PersistedMessage[] | null {
    const staged = this.#staged.get(runId);
    return staged === undefined ? null : persisted(staged.begin);
  }

  /** The held first messages of the conversation's runs, oldest run first. */
  messagesIn(conversationId: string): PersistedMessage[] {
    const found: PersistedMessage[] = [];
    for (const { begin, orphaned } of this.#staged.values()) {
      if (begin.conversationId === conversationId && !orphaned) found.push(...persisted(begin));
    }
    return found;
  }
}

function persisted(begin: RunBegin): PersistedMessage[] {
  // Not a literal that begins with a spread (see `UNADMITTED` in the core).
  return begin.messages.map((message, step) => Object.assign({}, message, { step, runId: begin.runId }));
}
