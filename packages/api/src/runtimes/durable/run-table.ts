import { JobErrorCode, type RunState } from '@agent-teams/core';
import type { Kysely, Selectable } from 'kysely';
import { CompiledStatement } from '../../storage/compiled-statement.js';
import type { Database, RuntimeRunsTable } from '../../storage/database-types.js';
import { rideWritesLeft } from '../../storage/pg-held-connection.js';
import { exactlyOneRow, RUN_ALREADY_ENDED } from '../../storage/pg-server-check.js';
import { readStoredShape } from '../../storage/stored-json.js';

/** A run by its key; compiled once (`storage/compiled-statement.ts`). */
const RUN_BY_KEY = new CompiledStatement(1, (db, runKey: string) =>
  db.selectFrom('runtime_runs').selectAll().where('run_key', '=', runKey),
);
/** A run by its id; compiled once. */
const RUN_BY_ID = new CompiledStatement(1, (db, runId: string) =>
  db.selectFrom('runtime_runs').selectAll().where('run_id', '=', runId),
);

/** A run inserted unless its key (or id) exists; compiled once. */
function insertRun(
  db: Kysely<Database>,
  runKey: string,
  runId: string,
  runtime: string,
  conversationId: string,
  jobId: string | null,
  state: string,
  stateJson: string,
  createdAt: string,
  updatedAt: string,
) {
  return db
    .insertInto('runtime_runs')
    .values({
      run_key: runKey,
      run_id: runId,
      runtime,
      conversation_id: conversationId,
      job_id: jobId,
      state,
      state_json: stateJson,
      created_at: createdAt,
      updated_at: updatedAt,
    })
    .onConflict((conflict) => conflict.doNothing());
}

const INSERT_RUN = new CompiledStatement(9, insertRun);

/**
 * PostgreSQL, a run's end carried by a job write: {@link INSERT_RUN} failing on the server unless
 * it inserted the row (`rideWritesLeft`).
 */
const INSERT_RUN_OR_REFUSE = new CompiledStatement(
  9,
  (db, ...values: Parameters<typeof insertRun> extends [unknown, ...infer V] ? V : never) =>
    exactlyOneRow(db, insertRun(db, ...values).returning('run_id'), RUN_ALREADY_ENDED),
);

/** A run moved from one state to another with its new document; compiled once. */
function transitionRun(db: Kysely<Database>, to: string, stateJson: string, now: string, runId: string, from: string) {
  return db
    .updateTable('runtime_runs')
    .set({ state: to, state_json: stateJson, updated_at: now })
    .where('run_id', '=', runId)
    .where('state', '=', from);
}

const TRANSITION_RUN = new CompiledStatement(5, transitionRun);

/** {@link TRANSITION_RUN} failing on the server unless it moved the row (as {@link INSERT_RUN_OR_REFUSE}). */
const TRANSITION_RUN_OR_REFUSE = new CompiledStatement(
  5,
  (db, to: string, stateJson: string, now: string, runId: string, from: string) =>
    exactlyOneRow(db, transitionRun(db, to, stateJson, now, runId, from).returning('run_id'), RUN_ALREADY_ENDED),
);

/** One `runtime_runs` row. */
export type RunRow = Selectable<RuntimeRunsTable>;

/** A run to insert, with the runtime's own document (`state_json`). */
export interface NewRun<D> {
  readonly runKey: string;
  readonly runId: string;
  readonly runtime: string;
  readonly conversationId: string;
  readonly jobId: string | null;
  /** `running`, or already a final state (a turn computed inside `start`: one write). */
  readonly state: string;
  readonly document: D;
  /** Its `created_at` (and `updated_at`, unless {@link updatedAt} is given). */
  readonly now: string;
  /** When the row is inserted already ended by a later write (a begin carried with its end). */
  readonly updatedAt?: string;
}

/**
 * The durable runs every runtime keeps in `runtime_runs`: idempotent by run key, each one
 * moving between states only by conditional writes.
 *
 * @remarks Both writes are conditional, so a duplicate start (another server, a replay after a
 * restart) never creates a second row and a run ends exactly once: the caller acts on a write
 * (appends the conversation, announces the outcome) only when it took effect.
 */
export class RunTable<D> {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The run started with this key, or null. */
  async findByKey(runKey: string): Promise<RunRow | null> {
    return (await RUN_BY_KEY.rows(this.#db, runKey))[0] ?? null;
  }

  /** The run with this id, or null. */
  async findById(runId: string): Promise<RunRow | null> {
    return (await RUN_BY_ID.rows(this.#db, runId))[0] ?? null;
  }

  /**
   * Inserts the run unless its key (or id) exists; true when this call inserted it.
   * @param db - a transaction, when the insert goes with other writes of the runtime.
   */
  async insert(run: NewRun<D>, db: Kysely<Database> = this.#db): Promise<boolean> {
    const values = [
      run.runKey,
      run.runId,
      run.runtime,
      run.conversationId,
      run.jobId,
      run.state,
      JSON.stringify(run.document),
      run.now,
      run.updatedAt ?? run.now,
    ] as const;
    // A carried end on PostgreSQL: left to the server, which refuses it when the run exists.
    const left = rideWritesLeft(db);
    if (left !== undefined) {
      left.defer(INSERT_RUN_OR_REFUSE.execute(db, ...values), () => undefined, true);
      return true;
    }
    const result = await INSERT_RUN.execute(db, ...values);
    return Number(result.numAffectedRows ?? 0n) > 0;
  }

  /**
   * Moves a run from state `from` to `to` with a new document; false when it was not in `from`.
   * @param db - a transaction, when the move goes with other writes of the runtime.
   */
  async transition(
    runId: string,
    from: string,
    to: string,
    document: D,
    now: string,
    db: Kysely<Database> = this.#db,
  ): Promise<boolean> {
    const values = [to, JSON.stringify(document), now, runId, from] as const;
    const left = rideWritesLeft(db);
    if (left !== undefined) {
      left.defer(TRANSITION_RUN_OR_REFUSE.execute(db, ...values), () => undefined, true);
      return true;
    }
    const result = await TRANSITION_RUN.execute(db, ...values);
    return Number(result.numAffectedRows ?? 0n) > 0;
  }
}

/**
 * How a run ends whose stored document no longer reads ({@link readDocument}): the job fails with
 * `STATE_LOST`, as one that lost its own state does (`scheduler/run-outcome.ts`).
 */
export const RUN_STATE_LOST: Extract<RunState, { readonly state: 'failed' }> = Object.freeze({
  state: 'failed',
  error: 'The run lost its stored state (a stored value no longer reads); it cannot continue.',
  code: JobErrorCode.STATE_LOST,
});

/** Only what every runtime's document shares: an object (its fields are each runtime's own). */
const isDocument = <D>(value: unknown): value is D =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A row's document, as its runtime wrote it, or null when it no longer reads: the text does not
 * parse, or is not an object (reported once, as `readStoredJson` does). A throw here would fail
 * every scheduler step of the run's job until its deadline; a null lets the runtime end the run
 * with {@link RUN_STATE_LOST} at once (decision 0245). Only the shape every runtime's document
 * shares (an object) is checked: its fields are each runtime's own.
 */
export function readDocument<D>(row: RunRow): D | null {
  const at = { table: 'runtime_runs', column: 'state_json', id: row.run_id, readAs: 'lost (STATE_LOST)' };
  return readStoredShape(at, row.state_json, isDocument<D>, 'is not a run document');
}
