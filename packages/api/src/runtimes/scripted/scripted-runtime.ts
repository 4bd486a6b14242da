import {
  asRunId,
  type PendingResponse,
  type ResumeRunArgs,
  type RunContext,
  type RunId,
  type RunState,
  RuntimeError,
  type StartRunArgs,
  type TurnInput,
  WAKE_KIND,
} from '@agent-teams/core';
import type { Kysely } from 'kysely';
import { appendConversation } from '../../storage/conversations.js';
import type { Database } from '../../storage/database-types.js';
import type { DatabaseDialect } from '../../storage/open-database.js';
import type { StoreContext } from '../../storage/write-transaction.js';
import { abortableSleep } from '../durable/abortable-sleep.js';
import { DurableRuntime, type DurableRuntimeDeps, type RunExecution } from '../durable/durable-runtime.js';
import type { RunRow } from '../durable/run-table.js';
import { needsBackground, parseDirectives } from './parse-directives.js';
import {
  runScript,
  type ScriptEnv,
  type ScriptOutcome,
  type ScriptPause,
  type ScriptResult,
  type ScriptTurn,
  turnEntries,
} from './run-script.js';

/** What {@link ScriptedRuntime} is built from. */
export interface ScriptedRuntimeDeps extends DurableRuntimeDeps {
  /** The database's dialect: a run's end and its conversation are written in one transaction. */
  readonly dialect: DatabaseDialect;
  /** Pause between two `!stream` deltas; default 20 ms. */
  readonly streamIntervalMs?: number;
}

/** What `state_json` holds: the turn to (re)play and, once it ended, how it ended. */
interface ScriptDocument {
  readonly turn: ScriptTurn;
  readonly outcome: ScriptOutcome | null;
  /** Where the script paused in a wait (outcome `waiting_change`); absent otherwise. */
  readonly paused?: ScriptPause | null;
}

/**
 * The deterministic `scripted` agent runtime (reference: "The `scripted` runtime" in
 * `docs/reference.md`), on the durable-run base.
 *
 * @remarks Runs are durable and idempotent by key: the run id is derived from the key, a second
 * start answers the existing run, and a run left `running` by a stopped process is replayed on
 * `poll` (waits skip the time already spent). A turn without `!sleep` or `!stream` is computed
 * inside `start` and inserted already finished: one write per instant turn, which rides in the
 * job write that records the run when the application shares its rides (decision 0221), as every
 * run's end does. A run's end (its row's final state) and its conversation
 * messages are written in ONE transaction, only by the call whose row write takes effect: never
 * twice for one run, and never an ended run without its conversation (a kill between two
 * separate writes left exactly that, and the replay found the run ended and wrote nothing).
 */
export class ScriptedRuntime extends DurableRuntime<ScriptDocument> {
  readonly name = 'scripted';
  readonly #deps: ScriptedRuntimeDeps;
  readonly #ctx: StoreContext;

  constructor(deps: ScriptedRuntimeDeps) {
    super(deps);
    this.#deps = deps;
    this.#ctx = { db: deps.db, dialect: deps.dialect, sink: null, ids: null };
  }

  start(args: StartRunArgs): Promise<{ runId: RunId }> {
    return this.once(args, () => this.#begin(args.runKey, turnOf(args.input), args.context));
  }

  protected resumeRun(args: ResumeRunArgs, asked: ScriptDocument | null): Promise<{ runId: RunId }> {
    if (asked?.outcome?.state === 'waiting_change' && args.response.kind === WAKE_KIND) {
      if (asked.outcome.wait.requestId !== args.response.inputRequestId || !asked.paused) {
        throw new RuntimeError('rejected', `run ${args.runId} waits for another change`);
      }
      return this.#begin(args.runKey, wakeTurn(asked.turn, asked.paused, args.response), args.context);
    }
    if (asked?.outcome?.state !== 'waiting' || args.response.kind === WAKE_KIND) {
      throw new RuntimeError('rejected', `run ${args.runId} is not waiting for input`);
    }
    if (asked.outcome.input.requestId !== args.response.inputRequestId) {
      throw new RuntimeError('rejected', `run ${args.runId} waits for another input`);
    }
    return this.#begin(args.runKey, answerTurn(asked.turn, args.response), args.context);
  }

  protected stoppedState(_row: RunRow, document: ScriptDocument): RunState {
    return document.outcome ?? { state: 'failed', error: 'run has no outcome' };
  }

  protected async cancelStored(row: RunRow, document: ScriptDocument, context: RunContext): Promise<void> {
    if (row.state !== 'running') return;
    const { turn } = document;
    const outcome: ScriptOutcome = { state: 'cancelled' };
    const ended = { runKey: row.run_key, runId: asRunId(row.run_id) };
    await this.#end(ended, { outcome, messages: turnEntries(turn, context.jobId) }, context, (trx, now) =>
      this.runs.transition(row.run_id, 'running', outcome.state, { turn, outcome }, now, trx),
    );
  }

  protected async execute(run: RunExecution<ScriptDocument>): Promise<void> {
    const { turn } = run.document;
    let result: ScriptResult;
    try {
      result = await runScript(turn, this.#env(run));
    } catch (error) {
      this.logger.error('scripted run failed unexpectedly', {
        runId: run.runId,
        jobId: run.context.jobId,
        error: String(error),
      });
      result = { outcome: { state: 'failed', error: 'scripted run failed unexpectedly' }, messages: [] };
    }
    if (run.abandoned) return;
    const { outcome } = result;
    const document = { turn, outcome, paused: result.paused ?? null };
    await this.#end(run, result, run.context, (trx, now) =>
      this.runs.transition(run.runId, 'running', outcome.state, document, now, trx),
    );
  }

  async #begin(runKey: string, turn: ScriptTurn, context: RunContext): Promise<{ runId: RunId }> {
    const runId = asRunId(`run_${runKey}`);
    const row = { runKey, runId, runtime: this.name, conversationId: context.conversationId, jobId: context.jobId };
    if (!needsBackground(parseDirectives(turn.text))) {
      const instant = { runId, runKey, context, signal: new AbortController().signal, creditMs: 0 };
      const result = await runScript(turn, this.#env(instant));
      const { outcome } = result;
      const document = { turn, outcome, paused: result.paused ?? null };
      await this.#end({ runKey, runId }, result, context, (trx, now) =>
        this.runs.insert(Object.assign({}, row, { state: outcome.state, document, now }), trx),
      );
      return { runId };
    }
    const document = { turn, outcome: null };
    // Not literals that begin with a spread (see `UNADMITTED` in the core): one per turn.
    if (await this.runs.insert(Object.assign({}, row, { state: 'running', document, now: this.now() }))) {
      this.launch(runId, runKey, document, context);
    }
    return { runId };
  }

  #env(run: Pick<RunExecution<ScriptDocument>, 'runId' | 'runKey' | 'context' | 'signal' | 'creditMs'>): ScriptEnv {
    return {
      runKey: run.runKey,
      jobId: run.context.jobId,
      tools: run.context.tools,
      signal: run.signal,
      sleep: abortableSleep,
      creditMs: run.creditMs,
      streamIntervalMs: this.#deps.streamIntervalMs ?? 20,
      progress: this.notices.progress(run.runId, run.context.jobId),
    };
  }

  /**
   * Ends the run with `write` (the row's conditional insert or move to its final state) and
   * appends the turn's conversation in the same transaction (`endRun`: with the job write that
   * records the run, or alone); announces the outcome only when the write takes effect (another
   * execution, or a replay, that lost the race writes nothing).
   */
  async #end(
    run: { readonly runKey: string; readonly runId: RunId },
    result: ScriptResult,
    context: RunContext,
    write: (trx: Kysely<Database>, now: string) => Promise<boolean>,
  ): Promise<void> {
    await this.endRun(this.#ctx, Object.assign({}, run, { state: result.outcome }), async (trx, now) => {
      if (!(await write(trx, now))) return false;
      await appendConversation(trx, context.conversationId, result.messages, now);
      return true;
    });
  }
}

function turnOf(input: TurnInput): ScriptTurn {
  const receipt = input.receipt ? { fromMemberName: input.receipt.fromMemberName, result: input.receipt.result } : null;
  const messages = input.messages ?? [];
  // A message turn's directives are in its messages (one per line); a broadcast receipt has none
  // (its sections are other members' answers, shown as its text); any other turn's are in its text.
  const text =
    input.kind === 'message'
      ? messages.map((m) => m.text).join('\n')
      : input.kind === 'broadcast_receipt'
        ? ''
        : input.text;
  return {
    kind: input.kind,
    text,
    ...(input.kind === 'broadcast_receipt' ? { humanText: input.text } : {}),
    memberName: input.memberName,
    receipt,
    answer: null,
    ...(messages.length === 0 ? {} : { messages }),
  };
}

/**
 * The continuation of a woken wait: the same script from the directive after the wait, its
 * answer lines so far plus the wait's line (the tool's compact JSON), which also opens the
 * continued conversation as the tool's result.
 */
function wakeTurn(asked: ScriptTurn, paused: ScriptPause, response: PendingResponse): ScriptTurn {
  const line = JSON.stringify(response.value) ?? 'null';
  return { ...asked, humanText: line, resumeAt: { index: paused.index, lines: [...paused.lines, line] } };
}

function answerTurn(asked: ScriptTurn, response: PendingResponse): ScriptTurn {
  const text = typeof response.value === 'string' ? response.value : (JSON.stringify(response.value) ?? 'null');
  return {
    kind: 'answer',
    text,
    memberName: asked.memberName,
    receipt: null,
    answer: { kind: response.kind === WAKE_KIND ? 'CLARIFICATION' : response.kind, value: response.value },
    humanText: response.message ?? null,
  };
}
