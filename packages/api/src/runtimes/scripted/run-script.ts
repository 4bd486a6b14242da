import type {
  ChangeWaitPlan,
  EndedRunState,
  InputKind,
  MemberToolPort,
  NewConversationMessage,
  TurnMessage,
} from '@agent-teams/core';
import { broadcastHeadings, isDomainError, teamMessageEntry, toolErrorExtras } from '@agent-teams/core';
import { callKey } from '../call-key.js';
import { type Directive, parseDirectives, splitLines } from './parse-directives.js';

/** The part of a turn the script reads; persisted with the run so a restart replays it. */
export interface ScriptTurn {
  readonly kind: 'request' | 'receipt' | 'answer' | 'message' | 'broadcast_receipt';
  /** The directives' source: the turn's text; for a `message` turn, its messages' texts, one per line. */
  readonly text: string;
  readonly memberName: string;
  readonly receipt: { readonly fromMemberName: string; readonly result: string } | null;
  /** For an `answer` turn: what kind of question it answers and the raw answer value. */
  readonly answer: { readonly kind: InputKind; readonly value: unknown } | null;
  /**
   * For an `answer` turn: the human message written to the conversation (it names the question
   * it answers); the directives still come from `text`, the raw answer. Absent on older rows.
   */
  readonly humanText?: string | null;
  /** Team messages delivered into the turn, written first as user-role entries. Absent on older rows. */
  readonly messages?: readonly TurnMessage[];
  /**
   * For a turn that continues a woken `wait_for_change`: the directive to continue after and the
   * answer lines written before it, the wait's own line (the tool's compact JSON) included.
   */
  readonly resumeAt?: ScriptPause | null;
}

/** Where a script paused in a wait: the wait directive's index and the answer lines so far. */
export interface ScriptPause {
  readonly index: number;
  readonly lines: readonly string[];
}

/** How a script ended (a `cancelled` script stopped at a cancellable wait). */
export type ScriptOutcome = EndedRunState;

/** What a script can do besides computing: call tools, wait, report progress. */
export interface ScriptEnv {
  readonly runKey: string;
  readonly jobId: NewConversationMessage['jobId'];
  readonly tools: MemberToolPort;
  readonly signal: AbortSignal;
  /** Waits `ms`; resolves false when the signal aborted the wait. */
  sleep(ms: number, signal: AbortSignal): Promise<boolean>;
  /** Milliseconds already spent in earlier executions of this run (restart): waits skip them. */
  readonly creditMs: number;
  /** Pause between two `!stream` deltas. */
  readonly streamIntervalMs: number;
  progress(event: { type: 'text'; delta: string } | { type: 'tool'; name: string }): void;
}

/** The outcome of a script and the conversation messages it wrote. */
export interface ScriptResult {
  readonly outcome: ScriptOutcome;
  readonly messages: readonly NewConversationMessage[];
  /** Set when the script paused in a wait (outcome `waiting_change`). */
  readonly paused?: ScriptPause;
}

/** Runs the directives of one turn in order (see the contract's "The `scripted` runtime"). */
export async function runScript(turn: ScriptTurn, env: ScriptEnv): Promise<ScriptResult> {
  const resume = turn.resumeAt ?? null;
  // A continued wait starts with the tool's result, not with the turn's text (or its delivered
  // team messages) again: those were written when the turn began.
  const messages: NewConversationMessage[] =
    resume === null ? turnEntries(turn, env.jobId) : [message('TOOL', turn.humanText ?? '', WAIT_TOOL, env)];
  const directives = parseDirectives(turn.text);
  const lines: string[] = resume !== null ? [...resume.lines] : directives.length === 0 ? [defaultAnswer(turn)] : [];
  let credit = env.creditMs;
  const end = (outcome: ScriptOutcome, finalText?: string): ScriptResult => {
    if (finalText !== undefined) messages.push(message('ASSISTANT', finalText, null, env));
    return { outcome, messages };
  };
  const wait = async (ms: number): Promise<boolean> => {
    const skipped = Math.min(credit, ms);
    credit -= skipped;
    return ms - skipped <= 0 ? !env.signal.aborted : env.sleep(ms - skipped, env.signal);
  };
  for (const [index, directive] of directives.entries()) {
    if (resume !== null && index <= resume.index) continue;
    if (env.signal.aborted) return end({ state: 'cancelled' });
    switch (directive.kind) {
      case 'invalid':
        return end({ state: 'failed', error: `invalid directive "${directive.line}": ${directive.reason}` });
      case 'fail':
        return end({ state: 'failed', error: directive.message });
      case 'ask':
        return end(
          {
            state: 'waiting',
            input: { kind: 'CLARIFICATION', requestId: inputRequestId(env.runKey), question: directive.question },
          },
          directive.question,
        );
      case 'interrupt':
        return end(
          {
            state: 'waiting',
            input: { kind: 'INTERRUPT', requestId: inputRequestId(env.runKey), payload: directive.payload },
          },
          `interrupt: ${JSON.stringify(directive.payload)}`,
        );
      case 'reply':
        lines.push(directive.text);
        break;
      case 'bytes':
        lines.push('x'.repeat(directive.count));
        break;
      case 'sleep':
        if (!(await wait(directive.ms))) return end({ state: 'cancelled' });
        lines.push(`slept ${directive.ms} ms`);
        break;
      case 'stream': {
        const deltas: string[] = [];
        for (let i = 1; i <= directive.count; i += 1) {
          // Wait before every delta, the first too: the caller learns the run id before any delta.
          if (!(await wait(env.streamIntervalMs))) return end({ state: 'cancelled' });
          const delta = i === 1 ? 'delta 1' : ` delta ${i}`;
          deltas.push(delta);
          env.progress({ type: 'text', delta });
        }
        lines.push(deltas.join(''));
        break;
      }
      case 'handoff': {
        const args = { member: directive.member, text: directive.text, request_id: callKey(env.runKey, String(index)) };
        const called = await callTool('send_member', args, env, messages);
        if (!called.ok)
          return end({ state: 'failed', error: `handoff to ${directive.member} refused: ${called.code}` });
        lines.push(`handed off to ${directive.member}`);
        break;
      }
      case 'wait':
      case 'tool': {
        if (directive.kind === 'tool' && directive.name !== WAIT_TOOL) {
          const called = await callTool(directive.name, directive.args, env, messages);
          lines.push(called.ok ? (JSON.stringify(called.value) ?? 'null') : errorLine(called));
          break;
        }
        // `!wait <ms>` and `!tool wait_for_change {...}` pause the script until the wait ends.
        const args = directive.kind === 'wait' ? { timeout_ms: directive.ms } : directive.args;
        const planned = await planWait(args, env, messages);
        if (!planned.ok) {
          lines.push(JSON.stringify({ error: { code: planned.code } }));
          break;
        }
        const wait = { ...planned.plan, requestId: `wait_${env.runKey}_${index}` };
        return { outcome: { state: 'waiting_change', wait }, messages, paused: { index, lines } };
      }
      default:
        return assertNever(directive);
    }
  }
  const answer = lines.join('\n');
  return end({ state: 'completed', answer }, answer);
}

/**
 * The user-role entries a turn starts with: each delivered team message, then the turn's own
 * text (a message turn has none: its messages are its entries).
 */
export function turnEntries(turn: ScriptTurn, jobId: NewConversationMessage['jobId']): NewConversationMessage[] {
  const user = (text: string): NewConversationMessage => ({ role: 'USER', text, toolName: null, jobId });
  const entries = (turn.messages ?? []).map((m) => user(teamMessageEntry(m)));
  if (turn.kind !== 'message') entries.push(user(turn.humanText ?? turn.text));
  return entries;
}

/** The clarification or interrupt id of a run, derived from its key so a replay asks the same. */
export function inputRequestId(runKey: string): string {
  return `input_${runKey}`;
}

/** The answer of a turn without directives. */
export function defaultAnswer(turn: ScriptTurn): string {
  if (turn.kind === 'message') return `messages: ${(turn.messages ?? []).map((m) => m.text).join(' | ')}`;
  if (turn.kind === 'broadcast_receipt') return `broadcast: ${broadcastHeadings(turn.humanText ?? '').join(' | ')}`;
  if (turn.kind === 'receipt' && turn.receipt)
    return `receipt from ${turn.receipt.fromMemberName}: ${turn.receipt.result}`;
  if (turn.kind === 'answer' && turn.answer) {
    return turn.answer.kind === 'INTERRUPT'
      ? `resumed: ${JSON.stringify(turn.answer.value) ?? 'null'}`
      : `answered: ${String(turn.answer.value)}`;
  }
  return `${turn.memberName}: ${splitLines(turn.text)[0] ?? ''}`;
}

/** The tool a wait calls, as the conversation names it. */
export const WAIT_TOOL = 'wait_for_change';

/** Plans a wait through the job's tools, writing the call (and a refusal) to the conversation. */
async function planWait(
  args: unknown,
  env: ScriptEnv,
  messages: NewConversationMessage[],
): Promise<{ ok: true; plan: ChangeWaitPlan } | { ok: false; code: string }> {
  env.progress({ type: 'tool', name: WAIT_TOOL });
  messages.push(message('ASSISTANT', JSON.stringify(args), WAIT_TOOL, env));
  try {
    if (env.tools.planWait === undefined) throw new Error('this run offers no waits');
    return { ok: true, plan: await env.tools.planWait(args) };
  } catch (error) {
    const code = isDomainError(error) ? error.code : 'UNEXPECTED';
    messages.push(message('TOOL', JSON.stringify({ error: { code } }), WAIT_TOOL, env));
    return { ok: false, code };
  }
}

async function callTool(
  name: string,
  args: unknown,
  env: ScriptEnv,
  messages: NewConversationMessage[],
): Promise<{ ok: true; value: unknown } | { ok: false; code: string; extras: Record<string, unknown> }> {
  env.progress({ type: 'tool', name });
  messages.push(message('ASSISTANT', JSON.stringify(args), name, env));
  let result: { ok: true; value: unknown } | { ok: false; code: string; extras: Record<string, unknown> };
  try {
    result = { ok: true, value: await env.tools.invoke(name, args) };
  } catch (error) {
    // Unexpected failures stay masked, as at the GraphQL edge: the agent sees a code, not internals.
    result = isDomainError(error)
      ? { ok: false, code: error.code, extras: toolErrorExtras(error) }
      : { ok: false, code: 'UNEXPECTED', extras: {} };
  }
  const text = result.ok ? JSON.stringify(result.value) : errorLine(result);
  messages.push(message('TOOL', text ?? 'null', name, env));
  return result;
}

/** A refused tool call as the answer line shows it: the code and the error's snake_case extras. */
function errorLine(failed: { readonly code: string; readonly extras: Record<string, unknown> }): string {
  return JSON.stringify({ error: { code: failed.code, ...failed.extras } });
}

function message(
  role: NewConversationMessage['role'],
  text: string,
  toolName: string | null,
  env: ScriptEnv,
): NewConversationMessage {
  return { role, text, toolName, jobId: env.jobId };
}

function assertNever(value: never): never {
  throw new Error(`[agent-teams/api] unhandled directive ${JSON.stringify(value as Directive)}`);
}
