import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { ModelCall } from './chat-call.js';
import { ANSWER_MAX_CHARS, ChunkAccumulator, type ModelAnswer, toolCallText } from './chunk-accumulator.js';
import { answerFailed, type CutShortCall, cancelled, ModelCallError } from './model-call-error.js';
import { ProviderAbortError, ProviderBodyError, type ProviderResponse, readBodyText } from './provider-http.js';
import { readUsage } from './provider-usage.js';
import { receivedAnswerBytes } from './received-answer.js';
import { readSseEvents, SSE_END_LINGER_MS, type SseEnd, SseEventTooLargeError } from './sse-reader.js';
import { ProviderStreamError, streamErrorText } from './stream-errors.js';

/**
 * The largest non-streamed answer body read, in bytes: room for an answer of `ANSWER_MAX_CHARS`
 * with JSON's escapes. A larger one breaks off there, as a stream past its limit does.
 */
export const ANSWER_BODY_MAX_BYTES = 4 * ANSWER_MAX_CHARS;

/** The last event of a chat completion stream. */
const STREAM_END: SseEnd = { data: '[DONE]', lingerMs: SSE_END_LINGER_MS };

/**
 * Reads a 2xx answer, streamed or not, into a {@link ModelAnswer}.
 *
 * @throws ModelCallError `failed` with `cutShort` set when the answer began and then failed (it is
 * billed: `callModel` reports it and never sends it again); `aborted` (with `cutShort`) when the run
 * was cancelled mid-stream; ProviderStreamError when a stream's first event is an error (a refusal,
 * judged as a status); ProviderAbortError or a cancel when a non-streamed body's read was aborted.
 */
export function readAnswer(response: ProviderResponse, call: ModelCall): Promise<ModelAnswer> {
  return call.stream ? readStream(response, call) : readCompletion(response, call);
}

async function readStream(response: ProviderResponse, call: ModelCall): Promise<ModelAnswer> {
  const accumulator = new ChunkAccumulator(call.idPrefix, call.progress);
  // Until a chunk was taken, an error event is a refusal sent in the stream (`ProviderStreamError`).
  let begun = false;
  try {
    // Leaving at `[DONE]` does not destroy the body: its end is read in the background, so the
    // connection stays open for the next call instead of being closed.
    await readSseEvents(response.body, call.signal, STREAM_END, (data) => {
      let chunk: { error?: unknown; usage?: unknown } & Parameters<ChunkAccumulator['push']>[0];
      try {
        chunk = JSON.parse(data);
      } catch (error) {
        throw answerFailed(
          `The model provider sent a malformed stream chunk (${describe(error)}).`,
          accumulator.soFar(),
          error,
        );
      }
      // JSON that is not an object (`null`, a number, a list) is no chunk: said so, not left to
      // fail on its first property read.
      if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) {
        throw answerFailed('The model provider sent a stream chunk that is not a JSON object.', accumulator.soFar());
      }
      if (chunk.error) {
        const usage = readUsage(chunk.usage);
        if (!begun) throw new ProviderStreamError(chunk.error, usage, response.headers);
        const soFar = accumulator.soFar();
        throw answerFailed(`The model provider reported an error in the stream: ${streamErrorText(chunk.error)}`, {
          outputBytes: soFar.outputBytes,
          usage: usage ?? soFar.usage,
        });
      }
      accumulator.push(chunk);
      begun = true;
    });
  } catch (error) {
    // Cancelled mid-stream: the provider has billed the prompt and what it streamed so far.
    if (call.signal.aborted || error instanceof ProviderAbortError) throw cancelled(accumulator.soFar());
    if (error instanceof ModelCallError || error instanceof ProviderStreamError) throw error;
    // Broken off or overlong: billed as far as it came, like a cancel at that point.
    if (error instanceof SseEventTooLargeError) {
      throw answerFailed(`The model provider sent ${error.message} in its stream.`, accumulator.soFar(), error);
    }
    throw answerFailed(`The model provider's stream broke off: ${describe(error)}`, accumulator.soFar(), error);
  }
  if (call.signal.aborted) throw cancelled(accumulator.soFar());
  if (!accumulator.finished) {
    throw answerFailed(
      'The model provider ended the stream before the answer was complete (cut stream).',
      accumulator.soFar(),
    );
  }
  return accumulator.answer();
}

/**
 * A non-streamed answer. One whose body breaks off, is not JSON or has no choice fails the call
 * without a retry, as a stream that breaks off does: the provider has likely billed the answer
 * already, so it is counted as a stream failed at the same point is: the body's own report when it
 * reads, else the prompt estimate and the answer text and tool-call arguments received
 * ({@link receivedAnswerBytes}).
 */
async function readCompletion(response: ProviderResponse, call: ModelCall): Promise<ModelAnswer> {
  let text: string;
  try {
    text = await readBodyText(response.body, call.signal, ANSWER_BODY_MAX_BYTES, 'fail');
  } catch (error) {
    // An abort is the caller's: a cancel after the request went out.
    if (!(error instanceof ProviderBodyError)) throw error;
    throw answerFailed(`The model provider's answer broke off: ${error.message}`, receivedOf(error.received), error);
  }
  let completion: ChatCompletion;
  try {
    completion = JSON.parse(text) as ChatCompletion;
  } catch (error) {
    throw answerFailed(`The model provider sent a malformed response (${describe(error)}).`, receivedOf(text), error);
  }
  const choice = completion?.choices?.[0];
  if (!choice || typeof choice !== 'object' || !choice.message) {
    throw answerFailed('The model provider answered without a choice (malformed response).', {
      outputBytes: 0,
      usage: readUsage(completion?.usage),
    });
  }
  const content = choice.message.content ?? '';
  if (content !== '') call.progress.text(content);
  const toolCalls = (choice.message.tool_calls ?? []).flatMap((tool, index) => {
    if (tool.type !== 'function') return [];
    const name = toolCallText(tool.function.name);
    call.progress.tool(name);
    return [
      {
        id: toolCallText(tool.id) || `${call.idPrefix}_${index}`,
        name,
        arguments: toolCallText(tool.function.arguments),
      },
    ];
  });
  return { content, toolCalls, finishReason: choice.finish_reason ?? 'unknown', usage: readUsage(completion.usage) };
}

/** What a non-streamed body that is no answer had delivered: its answer text's bytes, no report. */
function receivedOf(text: string): CutShortCall {
  return { outputBytes: receivedAnswerBytes(text), usage: null };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
