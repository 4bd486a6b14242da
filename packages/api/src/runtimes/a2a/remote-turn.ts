import type { StreamResponse } from '@a2a-js/sdk';
import type { A2aOutcome, A2aRunDoc } from './a2a-run-doc.js';
import { classifyRemoteError, type RemoteAgent, RemoteCallError } from './remote-agent.js';
import { deliveredTo, followTask, messageOf, readTask, type Sleep, sendMessage } from './remote-exchange.js';
import { answerOf, EMPTY_REMOTE_ANSWER, partsText, verdictOf } from './remote-outcome.js';

/** What one execution of an `a2a` run uses. */
export interface RemoteTurnEnv {
  /** The run as persisted when the execution began. */
  readonly doc: A2aRunDoc;
  /** Persists a changed document (the run stays running). */
  readonly save: (doc: A2aRunDoc) => Promise<void>;
  /** The remote agent (connected once, then cached); `forget` drops it after a refusal. */
  readonly agent: () => Promise<RemoteAgent>;
  readonly forget: () => void;
  /** `metadata.agentTeams` of the message; called only when the message is about to be sent. */
  readonly metadata: () => Promise<Record<string, unknown>>;
  /** The remote agent chose another context for the conversation. */
  readonly adoptContext: (contextId: string) => Promise<void>;
  readonly progress: (text: string) => void;
  readonly signal: AbortSignal;
  /** Epoch ms after which no retry waits. */
  readonly deadlineMs: number;
  readonly nowMs: () => number;
  readonly sleep: Sleep;
  /** First retry delay; doubled per attempt (with jitter), capped at 32× base. */
  readonly retryBaseMs: number;
  /** How often a task is read again when it cannot be streamed. */
  readonly pollMs: number;
}

/** How an execution ended: an outcome, or the agent refusing us (the team disconnects). */
export type TurnEnd =
  | { readonly kind: 'outcome'; readonly outcome: A2aOutcome }
  | { readonly kind: 'blocked'; readonly reason: string };

const failed = (error: string): TurnEnd => ({ kind: 'outcome', outcome: { state: 'failed', error } });

/**
 * Runs (or continues) one turn with a remote agent from what is persisted, until it ends.
 *
 * @remarks A loop over persisted state, so a fresh run and a replay after a restart share it:
 * a message not yet sent is sent (its send time persisted first); a message that may have
 * arrived is never sent again unless the agent demonstrably lacks it (`deliveredTo`); a known
 * task is followed by its id. Connection failures, 429 and 5xx are retried with backoff within
 * the turn deadline; a broken stream is followed again; a refusal fails the turn; 401/403 or an
 * auth-required task block it (the scheduler disconnects the team).
 * @throws RemoteCallError of kind `aborted` when the run is cancelled.
 */
export async function runRemoteTurn(env: RemoteTurnEnv): Promise<TurnEnd> {
  const turn = new RemoteTurn(env);
  for (let attempt = 1; ; attempt += 1) {
    if (env.signal.aborted) throw new RemoteCallError('aborted', 'The run was cancelled.');
    try {
      const end = await turn.step(await env.agent());
      if (end !== null) return end;
      attempt = 0;
      if (!(await env.sleep(env.pollMs, env.signal))) throw new RemoteCallError('aborted', 'The run was cancelled.');
    } catch (error) {
      const failure = classifyRemoteError(error, env.signal);
      if (failure.kind === 'aborted') throw failure;
      if (failure.kind === 'access') return { kind: 'blocked', reason: failure.message };
      if (failure.kind === 'rejected') {
        env.forget();
        return failed(failure.message);
      }
      const exponential = Math.min(env.retryBaseMs * 2 ** (attempt - 1), env.retryBaseMs * 32);
      const delay = failure.retryAfterMs ?? Math.round(exponential * (0.5 + Math.random() / 2));
      if (env.nowMs() + delay >= env.deadlineMs) {
        return failed(
          `The remote agent kept failing (${failure.message}); gave up after ${attempt} attempt(s) within the turn deadline.`,
        );
      }
      if (!(await env.sleep(delay, env.signal))) throw new RemoteCallError('aborted', 'The run was cancelled.');
    }
  }
}

/** One execution's view of the run: the document as it evolves, and the steps over it. */
class RemoteTurn {
  #doc: A2aRunDoc;
  readonly #env: RemoteTurnEnv;

  constructor(env: RemoteTurnEnv) {
    this.#env = env;
    this.#doc = env.doc;
  }

  /** One attempt: make sure the message is (exactly once) with the agent, then follow its task. */
  async step(agent: RemoteAgent): Promise<TurnEnd | null> {
    const { signal } = this.#env;
    const poll = { ms: this.#env.pollMs, sleep: this.#env.sleep };
    if (this.#doc.sentAtMs !== null && !this.#doc.delivered) {
      const where = await deliveredTo(agent, this.#doc, signal);
      if (where === undefined) {
        return failed(
          'The turn was sent to the remote agent, but whether it arrived is unknown after an interruption; it is not sent again.',
        );
      }
      await this.#save(
        where === null ? { ...this.#doc, sentAtMs: null } : { ...this.#doc, remoteTaskId: where, delivered: true },
      );
    }
    if (this.#doc.sentAtMs === null) {
      const message = messageOf(this.#doc, await this.#env.metadata());
      await this.#save({ ...this.#doc, sentAtMs: this.#env.nowMs() });
      return this.#consume(agent, sendMessage({ agent, signal, poll }, message));
    }
    return this.#consume(agent, followTask({ agent, signal, poll }, this.#doc.remoteTaskId as string));
  }

  /** Reads events until the turn ends (an outcome) or the stream ends first (null: follow again). */
  async #consume(agent: RemoteAgent, events: AsyncIterable<StreamResponse>): Promise<TurnEnd | null> {
    for await (const { payload } of events) {
      if (payload === undefined) continue;
      if (payload.$case === 'message') {
        // A direct answer without a task: the turn is complete with its text.
        if (this.#doc.remoteTaskId === null) {
          return {
            kind: 'outcome',
            outcome: { state: 'completed', answer: partsText(payload.value.parts) || EMPTY_REMOTE_ANSWER },
          };
        }
        continue;
      }
      const value = payload.value;
      const taskId = 'id' in value ? value.id : value.taskId;
      await this.#learn(taskId, value.contextId);
      if (payload.$case === 'artifactUpdate') continue;
      const verdict = verdictOf(taskId, payload.value.status);
      if (verdict.kind === 'working') {
        if (verdict.progress !== null) this.#env.progress(verdict.progress);
      } else if (verdict.kind === 'completed') {
        const task = await readTask(agent, taskId, this.#env.signal);
        return { kind: 'outcome', outcome: { state: 'completed', answer: answerOf(task) } };
      } else if (verdict.kind === 'auth') {
        return { kind: 'blocked', reason: `The remote agent asks for authentication: ${verdict.reason}` };
      } else if (verdict.outcome.state !== 'waiting' || verdict.outcome.input.requestId !== this.#doc.answers) {
        // (The question this run answers is the task as it was before the answer: not a new one.)
        return { kind: 'outcome', outcome: verdict.outcome };
      }
    }
    return null;
  }

  /** The agent named our task (and maybe its own context): persisted before acting on anything. */
  async #learn(taskId: string, contextId: string): Promise<void> {
    if (
      this.#doc.delivered &&
      this.#doc.remoteTaskId === taskId &&
      (contextId === '' || contextId === this.#doc.contextId)
    ) {
      return;
    }
    const adopt = contextId !== '' && contextId !== this.#doc.contextId;
    await this.#save({
      ...this.#doc,
      remoteTaskId: taskId,
      delivered: true,
      contextId: adopt ? contextId : this.#doc.contextId,
    });
    if (adopt) await this.#env.adoptContext(contextId);
  }

  async #save(doc: A2aRunDoc): Promise<void> {
    this.#doc = doc;
    await this.#env.save(doc);
  }
}
