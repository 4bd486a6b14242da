import type { ModelAnswer } from './chunk-accumulator.js';

/**
 * The notice appended to an answer the provider cut at the output limit (`finish_reason:
 * "length"`), like the job result's truncation notice: the cut text is kept, and said to be cut.
 */
export function cutNotice(maxOutputTokens: number): string {
  return `\n[Cut off: the model reached its output limit (maxOutputTokens ${maxOutputTokens}) before it finished this answer.]`;
}

/** What the turn does with an answer, given why the provider stopped it. */
export interface FinishVerdict {
  /** The text to store and answer with (a cut answer carries {@link cutNotice}). */
  readonly content: string;
  /** Set when the answer cannot end the turn nor have its calls run: the turn fails with it. */
  readonly error: string | null;
}

/**
 * Judges an answer by its finish reason before anything acts on it.
 *
 * @remarks `length`: the provider stopped at `max_tokens` (or the context limit). A cut text is
 * still most of an answer, so it completes with {@link cutNotice} appended, as an answer cut to the
 * job's byte budget keeps its text with a notice; but a cut tool call may carry partial JSON and a
 * cut list of calls is not the list the model meant, so an answer with calls to run fails without
 * running any (as does one cut before any text: there is nothing to keep). `content_filter`: the
 * provider withheld (part of) the answer for its policy, so what came is not the model's answer and
 * the turn fails saying so; what came stays in the member's conversation. Neither is retried: the
 * same request would likely stop the same way, and the provider has billed the answer.
 * @param runsCalls whether the answer's tool calls would be run (within `maxToolRounds`).
 */
export function judgeFinish(answer: ModelAnswer, runsCalls: boolean, maxOutputTokens: number): FinishVerdict {
  const { content } = answer;
  if (answer.finishReason === 'content_filter') {
    const calls = runsCalls ? '; its tool calls were not run' : '';
    return {
      content,
      error: `The model provider's content filter stopped the answer (finish_reason "content_filter")${calls}.`,
    };
  }
  if (answer.finishReason !== 'length') return { content, error: null };
  const limit = `its output limit (maxOutputTokens ${maxOutputTokens})`;
  if (runsCalls) {
    return {
      content,
      error: `The model's answer was cut off at ${limit} while it was calling tools; its calls were not run. Raise maxOutputTokens.`,
    };
  }
  if (content.trim() === '') {
    return {
      content,
      error: `The model reached ${limit} before it wrote any answer. Raise maxOutputTokens.`,
    };
  }
  return { content: content + cutNotice(maxOutputTokens), error: null };
}
