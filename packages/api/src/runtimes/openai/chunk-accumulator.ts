import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ToolCall } from './member-tools.js';
import { answerFailed } from './model-call-error.js';
import { readUsage, type TokenUsage } from './provider-usage.js';

/** One complete model answer: text, tool calls, why it stopped and what it cost. */
export interface ModelAnswer {
  readonly content: string;
  readonly toolCalls: readonly ToolCall[];
  readonly finishReason: string;
  /** Null when the provider sent no usage block. */
  readonly usage: TokenUsage | null;
}

/** Where streamed progress goes as it arrives. */
export interface ProgressSink {
  text(delta: string): void;
  /** Called once per tool call, when its name is first known. */
  tool(name: string): void;
}

/**
 * A tool call's id, name or arguments as stored text. A provider that calls itself OpenAI
 * compatible may send a number for an id or an object for arguments: kept as they came, such a call
 * is stored as JSON that no longer reads as a tool call (`stored-tool-calls.ts`), and its run
 * would fail as if the database were damaged. An object becomes its JSON (what the arguments
 * mean), anything else its string; null and undefined the empty text.
 */
export function toolCallText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * Assembles a streamed Chat Completions answer from its SSE chunks.
 *
 * @remarks Tool calls arrive as deltas keyed by `index`: the first delta of an index carries the
 * id and name, later ones append to the JSON text of the arguments; several indexes interleave
 * for parallel calls. A provider that omits ids gets `<idPrefix>_<index>`. Usage may come in a
 * last chunk with no choices (`stream_options.include_usage`) or beside the finish reason.
 */
/**
 * The most an answer may hold, in UTF-16 code units: its text, and its tool calls' ids, names and
 * arguments (each call counting {@link ANSWER_CALL_CHARS} more for itself).
 *
 * @remarks A provider that never stops (a broken or hostile one, or a proxy in front of it) would
 * otherwise grow one answer until the server ran out of memory, and every team with it: each
 * event is capped (`SSE_EVENT_MAX_CHARS`), their number was not. 16 Mi is far above any
 * `maxOutputTokens` a model takes (128k tokens are about 512 KiB of text). Past it the call fails
 * as a stream cut at that point does, billed as far as it came before the chunk that passed it.
 */
export const ANSWER_MAX_CHARS = 16 * 1024 * 1024;
/** What one tool call of an answer counts against {@link ANSWER_MAX_CHARS} beside its strings. */
export const ANSWER_CALL_CHARS = 64;

export class ChunkAccumulator {
  readonly #idPrefix: string;
  readonly #progress: ProgressSink;
  #content = '';
  readonly #calls = new Map<number, { id: string; name: string; arguments: string }>();
  #finishReason: string | null = null;
  #usage: TokenUsage | null = null;
  /** What the answer holds so far, counted against {@link ANSWER_MAX_CHARS}. */
  #chars = 0;

  constructor(idPrefix: string, progress: ProgressSink) {
    this.#idPrefix = idPrefix;
    this.#progress = progress;
  }

  /** Adds one chunk, reporting new text and newly named tool calls. */
  push(chunk: ChatCompletionChunk): void {
    this.#usage = readUsage(chunk.usage) ?? this.#usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.#grow(delta.content.length);
      this.#content += delta.content;
      this.#progress.text(delta.content);
    }
    for (const part of delta.tool_calls ?? []) {
      const index = part.index ?? 0;
      let call = this.#calls.get(index);
      if (!call) {
        this.#grow(ANSWER_CALL_CHARS);
        call = { id: '', name: '', arguments: '' };
        this.#calls.set(index, call);
      }
      if (part.id && call.id === '') call.id = this.#counted(toolCallText(part.id));
      const name = part.function?.name;
      if (name && call.name === '') {
        call.name = this.#counted(toolCallText(name));
        this.#progress.tool(call.name);
      }
      if (part.function?.arguments) call.arguments += this.#counted(toolCallText(part.function.arguments));
    }
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
  }

  /** Counts `chars` more; @throws ModelCallError `failed` (billed as far as it came) past the limit. */
  #grow(chars: number): void {
    this.#chars += chars;
    if (this.#chars <= ANSWER_MAX_CHARS) return;
    throw answerFailed(`The model provider's answer passed ${ANSWER_MAX_CHARS} characters.`, this.soFar());
  }

  #counted(text: string): string {
    this.#grow(text.length);
    return text;
  }

  /** True once a chunk carried a finish reason (a stream without one was cut). */
  get finished(): boolean {
    return this.#finishReason !== null;
  }

  /**
   * What the provider has sent so far, for a call cancelled mid-stream (`call-usage.ts`): the
   * UTF-8 bytes of its text and tool-call arguments, and its usage report if one came.
   */
  soFar(): { readonly outputBytes: number; readonly usage: TokenUsage | null } {
    let outputBytes = Buffer.byteLength(this.#content, 'utf8');
    for (const call of this.#calls.values()) outputBytes += Buffer.byteLength(call.arguments, 'utf8');
    return { outputBytes, usage: this.#usage };
  }

  /** The assembled answer; call only when {@link finished}. */
  answer(): ModelAnswer {
    const toolCalls = [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({
        id: call.id || `${this.#idPrefix}_${index}`,
        name: call.name,
        arguments: call.arguments,
      }));
    return { content: this.#content, toolCalls, finishReason: this.#finishReason ?? 'unknown', usage: this.#usage };
  }
}
