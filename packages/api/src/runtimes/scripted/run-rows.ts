import type { Kysely, Selectable } from 'kysely';
import type { Database, RuntimeRunsTable } from '../../storage/database-types.js';
import type { ScriptOutcome, ScriptTurn } from './run-script.js';

/** One `runtime_runs` row as the scripted runtime reads it. */
export type RunRow = Selectable<RuntimeRunsTable>;

/** What `state_json` holds: the turn to (re)play and, once it ended, how it ended. */
export interface RunDocument {
  readonly turn: ScriptTurn;
  readonly outcome: ScriptOutcome | null;
}

/** A run to insert. */
export interface NewRun {
  readonly runKey: string;
  readonly runId: string;
  readonly runtime: string;
  readonly conversationId: string;
  readonly jobId: string | null;
  readonly turn: ScriptTurn;
  /** Null inserts the run as `running`; an outcome inserts it already finished (one write). */
  readonly outcome: ScriptOutcome | null;
  readonly now: string;
}

/**
 * Reads and writes the scripted runtime's `runtime_runs` rows.
 *
 * @remarks Both writes are conditional, so a duplicate start (another server, a replay after a
 * restart) never creates a second row and a run ends exactly once: the caller appends the
 * conversation only when its write took effect.
 */
export class RunRows {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The run started with this key, or null. */
  async findByKey(runKey: string): Promise<RunRow | null> {
    const row = await this.#db.selectFrom('runtime_runs').selectAll().where('run_key', '=', runKey).executeTakeFirst();
    return row ?? null;
  }

  /** The run with this id, or null. */
  async findById(runId: string): Promise<RunRow | null> {
    const row = await this.#db.selectFrom('runtime_runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
    return row ?? null;
  }

  /** Inserts the run unless its key (or id) exists; true when this call inserted it. */
  async insert(run: NewRun): Promise<boolean> {
    const document: RunDocument = { turn: run.turn, outcome: run.outcome };
    const result = await this.#db
      .insertInto('runtime_runs')
      .values({
        run_key: run.runKey,
        run_id: run.runId,
        runtime: run.runtime,
        conversation_id: run.conversationId,
        job_id: run.jobId,
        state: run.outcome?.state ?? 'running',
        state_json: JSON.stringify(document),
        created_at: run.now,
        updated_at: run.now,
      })
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** Ends a `running` run; true when this call ended it (false: it had already ended). */
  async finish(runId: string, turn: ScriptTurn, outcome: ScriptOutcome, now: string): Promise<boolean> {
    const document: RunDocument = { turn, outcome };
    const result = await this.#db
      .updateTable('runtime_runs')
      .set({ state: outcome.state, state_json: JSON.stringify(document), updated_at: now })
      .where('run_id', '=', runId)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

/** Reads a row's document. */
export function readDocument(row: RunRow): RunDocument {
  return JSON.parse(row.state_json ?? 'null') as RunDocument;
}
