import type { ConversationId, JobId, UsageEntry } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database-types.js';
import { DriverErrorKind, StorageError } from '../../storage/driver-errors.js';
import type { DatabaseDialect } from '../../storage/open-database.js';
import type { RideWrite } from '../../storage/run-rides.js';
import { insertUsage } from '../../storage/usage.js';
import { runWrite, type StoreContext } from '../../storage/write-transaction.js';
import type { RunTable } from '../durable/run-table.js';
import type { StoredMessage } from './context-window.js';
import { HistoryCache, readHistory } from './history-cache.js';
import { toPersisted, writeMessageBatches, writeMessages } from './openai-messages.js';
import type { RunOutcome } from './run-outcome.js';
import { type RunBegin, StagedRuns } from './staged-runs.js';

export type { RunOutcome } from './run-outcome.js';

/** What `runtime_runs.state_json` holds for an `openai` run. */
export interface OpenAiRunDoc {
  /** Display name of the member, for the system prompt. */
  readonly memberName: string;
  /** The member's role, for the system prompt; absent on runs begun before roles existed. */
  readonly memberRole?: string | null;
  /** True for the team's lead, who is offered the lead's tools; absent (false) on older runs. */
  readonly memberIsLead?: boolean;
  readonly teamId: string;
  readonly jobId: string;
  /** When the run began (epoch ms) and its turn deadline, so a replay keeps the same deadline. */
  readonly startedAtMs: number;
  readonly timeoutMs: number;
  readonly outcome: RunOutcome | null;
  /** Set while the provider refuses the key: the next poll reports it (the team disconnects). */
  readonly blocked: string | null;
}

/** A message to persist: the provider's shape and what `Member.conversation` shows of it. */
export interface MessageDraft extends StoredMessage {
  /** For a tool message: the tool it answers. */
  readonly toolName: string | null;
  /** For a user message: the readable text shown in the member's conversation. */
  readonly displayText?: string;
}

/** A persisted message of a run. */
export interface PersistedMessage extends MessageDraft {
  readonly step: number;
  readonly runId: string;
}

/**
 * How a turn records its outcome together with its last step: the runtime hands the document of a
 * finished run (`document`); the turn sets `outcome` when its step ends the turn, and the store sets
 * `recorded` once the run's transition committed with the step (then nothing is left to record).
 */
export interface TurnFinish {
  document(outcome: RunOutcome): OpenAiRunDoc;
  outcome?: RunOutcome;
  recorded: boolean;
  /** The turn lets its last step wait for the job write (no spend reservation waits for it). */
  mayRide?: boolean;
  /**
   * Set by the runtime when rides are on: offers the last step's whole write (with an unwritten
   * begin) to the job write that records the run and announces `ends` (decision 0221). Called
   * instead of writing, while the begin is still held, so the run is never unknown in between.
   * `usage` is the answer's: recorded alone if the ride is lost (the call was billed all the same).
   */
  offer?: (write: RideWrite, ends: RunOutcome, usage: UsageEntry | null) => void;
  /** Set once the last step was offered (`offer`): nothing is left to record. */
  ridden?: boolean;
}

/**
 * The `openai` runtime's persistence beside its runs (`runtime_runs`, see the durable base): its
 * provider-shaped messages in `openai_messages`, their readable projection in `conversation_messages`
 * and the usage of each answered call in `model_usage`, each step written in ONE transaction (a new
 * run's row and first messages with its first step: `staged-runs.ts`).
 *
 * @remarks That one transaction is what makes the runtime idempotent: a model answer is durable,
 * with its usage and its visible messages, before anything acts on it, so a replay after a crash
 * continues from it instead of asking the provider again. `(run_id, step)` is unique, so a second
 * execution of the same run (a replay racing the original) loses the write and stops.
 */
export class OpenAiRunStore {
  readonly #ctx: StoreContext;
  readonly #runs: RunTable<OpenAiRunDoc>;
  readonly #staged = new StagedRuns();
  /** Recent histories, on SQLite only (`history-cache.ts` says why). */
  readonly #history: HistoryCache | null;

  constructor(db: Kysely<Database>, dialect: DatabaseDialect, runs: RunTable<OpenAiRunDoc>) {
    this.#ctx = { db, dialect, sink: null, ids: null };
    this.#runs = runs;
    this.#history = dialect === 'sqlite' ? new HistoryCache() : null;
  }

  /**
   * True when {@link history} hands the same message objects from call to call (SQLite, whose
   * history cache keeps them), so what is derived from a message may be kept by its identity.
   */
  get keepsHistory(): boolean {
    return this.#history !== null;
  }

  /** The store's handle on the database (a run's end written alone). */
  get context(): StoreContext {
    return this.#ctx;
  }

  /**
   * Begins a run in memory: its row and first messages (the turn's input, or a person's answer)
   * are written with its first step, or by {@link persist} if that comes first (`staged-runs.ts`).
   */
  stage(begin: RunBegin): void {
    this.#staged.stage(begin);
  }

  /** True while a run begun here is not written yet. */
  isStaged(runId: string): boolean {
    return this.#staged.has(runId);
  }

  /** Forgets an unwritten run (its execution ended without writing anything, or the process stops). */
  drop(runId: string): void {
    this.#staged.drop(runId);
  }

  /** Keeps an unwritten run whose execution failed for `persist` only (`StagedRuns.orphan`). */
  orphan(runId: string): void {
    this.#staged.orphan(runId);
  }

  /** Writes a staged run's row and first messages now, alone; nothing when it is written already. */
  async persist(runId: string, now: string): Promise<void> {
    await this.#staged.carry(runId, async (begin) => {
      if (begin !== null) await runWrite(this.#ctx, now, ({ trx }) => this.#writeBegin(trx, begin));
      return { result: undefined, carried: true };
    });
  }

  /** Inserts a run with its first messages; false (and nothing written) when its key exists. */
  async #writeBegin(trx: Kysely<Database>, begin: RunBegin): Promise<boolean> {
    // Not a literal that begins with a spread (see `UNADMITTED` in the core).
    const run = Object.assign({}, begin, { runtime: 'openai', state: 'running', document: begin.doc });
    if (!(await this.#runs.insert(run, trx))) return false;
    await writeMessages(trx, begin.runId, begin.conversationId, begin.jobId, 0, begin.messages, begin.now);
    return true;
  }

  /**
   * Appends the messages of one step (a model answer with its usage, or tool results) at
   * `firstStep`. @returns false when another execution already wrote that step.
   */
  async appendStep(args: {
    runId: string;
    conversationId: ConversationId;
    jobId: JobId;
    firstStep: number;
    messages: readonly MessageDraft[];
    usage: UsageEntry | null;
    now: string;
    /** The turn ends with this step: its outcome is recorded in the same commit (one fsync less). */
    finish?: TurnFinish | null;
  }): Promise<boolean> {
    const { finish } = args;
    const offer = finish?.offer;
    if (finish?.outcome && finish.mayRide && offer) {
      const ends = finish.outcome;
      // The begin (if still held) goes with the ride, offered before it stops being held.
      return this.#staged.carry(args.runId, async (begin) => {
        offer((trx, now) => this.#writeLastStep(trx, { ...args, now }, begin, ends, finish), ends, args.usage);
        finish.ridden = true;
        return { result: true, carried: true };
      });
    }
    return this.#staged.carry(args.runId, (begin) => this.#appendStep(args, begin));
  }

  /**
   * A finishing step's write inside the transaction that carries it: the unwritten begin, the
   * step's messages (skipped, and false returned, when another execution wrote that step), the
   * usage and the run's move to its end. False: lost to another execution (nothing to keep).
   */
  async #writeLastStep(
    trx: Kysely<Database>,
    args: Parameters<OpenAiRunStore['appendStep']>[0],
    begin: RunBegin | null,
    ends: RunOutcome,
    finish: TurnFinish,
  ): Promise<boolean> {
    const { runId, conversationId, jobId, firstStep, messages, now } = args;
    if (begin !== null && firstStep === begin.messages.length) {
      // Begun and ended in one write (a first answer): the row inserted ended, and the first
      // messages with the answer in one insert each, each stamped as before (3 statements less).
      const run = Object.assign({}, begin, {
        runtime: 'openai',
        state: ends.state,
        document: finish.document(ends),
        updatedAt: now,
      });
      if (!(await this.#runs.insert(run, trx))) return false;
      const batches = [
        { firstStep: 0, messages: begin.messages, now: begin.now },
        { firstStep, messages, now },
      ];
      if (!(await writeMessageBatches(trx, runId, conversationId, jobId, batches, true))) return false;
      if (args.usage !== null) await insertUsage(trx, args.usage, now);
      return true;
    }
    if (begin !== null && !(await this.#writeBegin(trx, begin))) return false;
    if (!(await writeMessages(trx, runId, conversationId, jobId, firstStep, messages, now, true))) return false;
    if (args.usage !== null) await insertUsage(trx, args.usage, now);
    return this.#runs.transition(runId, 'running', ends.state, finish.document(ends), now, trx);
  }

  /**
   * {@link appendStep}, writing the run's unwritten begin first in the same transaction.
   * `carried`: the begin is in the database (written here, or found there: another execution's).
   */
  async #appendStep(
    args: Parameters<OpenAiRunStore['appendStep']>[0],
    begin: RunBegin | null,
  ): Promise<{ result: boolean; carried: boolean }> {
    const { finish } = args;
    let moved = false;
    let lost = false;
    try {
      await runWrite(this.#ctx, args.now, async ({ trx }) => {
        moved = false;
        lost = begin !== null && !(await this.#writeBegin(trx, begin));
        if (lost) return;
        await writeMessages(trx, args.runId, args.conversationId, args.jobId, args.firstStep, args.messages, args.now);
        if (args.usage !== null) await insertUsage(trx, args.usage, args.now);
        if (finish?.outcome) {
          const document = finish.document(finish.outcome);
          moved = await this.#runs.transition(args.runId, 'running', finish.outcome.state, document, args.now, trx);
        }
      });
      // Only once committed (a retried transaction runs the callback again).
      if (finish) finish.recorded = moved;
      return { result: !lost, carried: true };
    } catch (error) {
      // Rolled back, the begin with it: it stays held (its insert is idempotent: ON CONFLICT DO NOTHING).
      if (error instanceof StorageError && error.kind === DriverErrorKind.UNIQUE_VIOLATION) {
        return { result: false, carried: begin === null };
      }
      throw error;
    }
  }

  /**
   * Records the usage of a call that left no step (one cancelled after its request was sent),
   * alone: idempotent by its id (`insertUsage`), so a retried write counts it once.
   */
  async recordUsage(entry: UsageEntry, now: string): Promise<void> {
    await runWrite(this.#ctx, now, ({ trx }) => insertUsage(trx, entry, now));
  }

  /** The messages of one run, in step order. */
  async runMessages(runId: string): Promise<PersistedMessage[]> {
    const staged = this.#staged.messagesOf(runId);
    if (staged !== null) return staged;
    const rows = await this.#ctx.db
      .selectFrom('openai_messages')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('step')
      .execute();
    return rows.map(toPersisted);
  }

  /** The newest `limit` messages of a conversation, oldest first. */
  async history(conversationId: string, limit: number): Promise<PersistedMessage[]> {
    // A forked member's conversation starts with the lead's completed turns, copied without a job
    // (decision 0165): the model sees them first, as plain user and assistant text.
    const { seeded, rows } = await readHistory(this.#ctx.db, this.#history, conversationId, limit);
    // A run begun here and not written yet: its first messages are the newest (unless just committed).
    const read = new Set(rows.map((row) => row.runId));
    const staged = this.#staged.messagesIn(conversationId).filter((message) => !read.has(message.runId));
    return [...seeded, ...rows, ...staged].slice(-limit);
  }
}
