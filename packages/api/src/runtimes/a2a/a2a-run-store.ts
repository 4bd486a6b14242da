import { randomUUID } from 'node:crypto';
import type { ConversationId, InputRequest, JobId, RunState } from '@agent-teams/core';
import type { Kysely, Selectable } from 'kysely';
import type { Database, RuntimeRunsTable } from '../../storage/database-types.js';

/** How a run ended. */
export type A2aOutcome =
  | { readonly state: 'completed'; readonly answer: string }
  | { readonly state: 'waiting'; readonly input: InputRequest }
  | { readonly state: 'failed'; readonly error: string }
  | { readonly state: 'cancelled' };

/** What `runtime_runs.state_json` holds for an `a2a` run: one message to a remote agent and its task. */
export interface A2aRunDoc {
  readonly teamId: string;
  readonly jobId: string;
  /** When the run began (epoch ms) and its turn deadline, so a replay keeps the same deadline. */
  readonly startedAtMs: number;
  readonly timeoutMs: number;
  /** The message's id (derived from the run key: the same turn always sends the same id). */
  readonly messageId: string;
  /** The message's text. */
  readonly text: string;
  /** The conversation's A2A context. */
  readonly contextId: string;
  /**
   * The remote task: known before sending for an answer (the task that asked), and from the
   * remote's first answer for a new turn. Once known, a replay follows it and never sends again.
   */
  readonly remoteTaskId: string | null;
  /** For an answer: the id of the question it answers (the remote task's input-required message). */
  readonly answers: string | null;
  /** When the message went out (epoch ms); set before sending, so a replay knows it may have arrived. */
  readonly sentAtMs: number | null;
  /** True once the remote agent showed it has the message (it answered, or lists it in its task). */
  readonly delivered: boolean;
  readonly outcome: A2aOutcome | null;
  /** Set while the remote agent refuses our credentials or asks for auth: the next poll reports it. */
  readonly blocked: string | null;
}

/** A run row. */
export type A2aRunRow = Selectable<RuntimeRunsTable>;

/** The document of a run that ended with `outcome`. */
export function settled(doc: A2aRunDoc, outcome: A2aOutcome): A2aRunDoc {
  return { ...doc, outcome, blocked: null };
}

/** What `poll` answers for an ended run. */
export function stateOf(outcome: A2aOutcome | null): RunState {
  return outcome ?? { state: 'failed', error: 'run has no outcome' };
}

/** Reads a run row's document. */
export function a2aRunDoc(row: A2aRunRow): A2aRunDoc {
  return JSON.parse(row.state_json ?? 'null') as A2aRunDoc;
}

/**
 * The `a2a` runtime's persistence: its runs in `runtime_runs` (one row per turn, keyed by run
 * key, its document updated at each step: sent, remote task known, outcome) and the A2A context
 * of each member conversation in `a2a_contexts`.
 *
 * @remarks Every update names the state it expects (`running`, `blocked`), so two executions of
 * one run (a replay racing the original) cannot both settle it.
 */
export class A2aRunStore {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async findByKey(runKey: string): Promise<A2aRunRow | null> {
    return (
      (await this.#db.selectFrom('runtime_runs').selectAll().where('run_key', '=', runKey).executeTakeFirst()) ?? null
    );
  }

  async findById(runId: string): Promise<A2aRunRow | null> {
    return (
      (await this.#db.selectFrom('runtime_runs').selectAll().where('run_id', '=', runId).executeTakeFirst()) ?? null
    );
  }

  /** Inserts a running run; does nothing when the key exists. @returns true when this call inserted it. */
  async begin(args: {
    runKey: string;
    runId: string;
    conversationId: ConversationId;
    jobId: JobId;
    doc: A2aRunDoc;
    now: string;
  }): Promise<boolean> {
    const inserted = await this.#db
      .insertInto('runtime_runs')
      .values({
        run_key: args.runKey,
        run_id: args.runId,
        runtime: 'a2a',
        conversation_id: args.conversationId,
        job_id: args.jobId,
        state: 'running',
        state_json: JSON.stringify(args.doc),
        created_at: args.now,
        updated_at: args.now,
      })
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** Moves a run from `from` to `state` with a new document; false when it was not in `from`. */
  async transition(runId: string, from: string, state: string, doc: A2aRunDoc, now: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('runtime_runs')
      .set({ state, state_json: JSON.stringify(doc), updated_at: now })
      .where('run_id', '=', runId)
      .where('state', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The conversation's A2A context, minted (and stored) on first use. */
  async contextOf(conversationId: ConversationId, now: string): Promise<string> {
    await this.#db
      .insertInto('a2a_contexts')
      .values({ conversation_id: conversationId, context_id: `ctx-${randomUUID()}`, updated_at: now })
      .onConflict((conflict) => conflict.column('conversation_id').doNothing())
      .execute();
    const row = await this.#db
      .selectFrom('a2a_contexts')
      .select('context_id')
      .where('conversation_id', '=', conversationId)
      .executeTakeFirstOrThrow();
    return row.context_id;
  }

  /** Keeps the context the remote agent chose for the conversation (it may not take ours). */
  async adoptContext(conversationId: ConversationId, contextId: string, now: string): Promise<void> {
    await this.#db
      .updateTable('a2a_contexts')
      .set({ context_id: contextId, updated_at: now })
      .where('conversation_id', '=', conversationId)
      .execute();
  }
}
