/** A tool call a fake model answer makes. */
export interface FakeToolCall {
  readonly id: string;
  readonly name: string;
  /** JSON text of the arguments (sent split across chunks when streaming). */
  readonly arguments: string;
}

/** Token usage in the provider's names. */
export interface FakeUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  /** `cached_tokens`: of `prompt_tokens`, those read from the provider's prompt cache. */
  readonly prompt_tokens_details?: { readonly cached_tokens?: number };
}

/** A model answer, served as one JSON completion or as SSE chunks, as the request asks. */
export interface FakeCompletion {
  /** Text of the answer; split into `deltas` when given, else into words, when streaming. */
  readonly content?: string;
  readonly deltas?: readonly string[];
  readonly toolCalls?: readonly FakeToolCall[];
  readonly usage?: FakeUsage | null;
  readonly finishReason?: string;
}

const CREATED = 1_764_460_800;

function chunk(model: string, delta: object, finishReason: string | null, extra: object = {}): object {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...extra,
  };
}

/** Splits text into pieces of about `size` characters (never inside a surrogate pair). */
function pieces(text: string, count: number): string[] {
  const chars = [...text];
  if (chars.length === 0) return [];
  const size = Math.max(1, Math.ceil(chars.length / count));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/**
 * The `data:` payloads (JSON values, then `[DONE]`) of a streamed Chat Completions answer, in
 * OpenAI's wire format: a role chunk, content deltas, tool calls announced with id and name and
 * their arguments split over several chunks (parallel calls interleaved by `index`), a chunk with
 * the finish reason, and the usage chunk with empty `choices` when `includeUsage`.
 */
export function completionChunks(model: string, answer: FakeCompletion, includeUsage: boolean): (object | '[DONE]')[] {
  const out: (object | '[DONE]')[] = [chunk(model, { role: 'assistant', content: '' }, null)];
  const deltas = answer.deltas ?? (answer.content ? answer.content.split(/(?<= )/) : []);
  for (const delta of deltas) out.push(chunk(model, { content: delta }, null));
  const calls = answer.toolCalls ?? [];
  calls.forEach((call, index) => {
    out.push(
      chunk(
        model,
        { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] },
        null,
      ),
    );
  });
  const argPieces = calls.map((call) => pieces(call.arguments, 3));
  const rounds = Math.max(0, ...argPieces.map((p) => p.length));
  for (let round = 0; round < rounds; round += 1) {
    argPieces.forEach((parts, index) => {
      const part = parts[round];
      if (part !== undefined) out.push(chunk(model, { tool_calls: [{ index, function: { arguments: part } }] }, null));
    });
  }
  const finish = answer.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
  out.push(chunk(model, {}, finish));
  if (includeUsage && answer.usage) {
    out.push({
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      choices: [],
      usage: { ...answer.usage, total_tokens: answer.usage.prompt_tokens + answer.usage.completion_tokens },
    });
  }
  out.push('[DONE]');
  return out;
}

/** A non-streamed Chat Completions answer (`object: "chat.completion"`). */
export function completionJson(model: string, answer: FakeCompletion): object {
  const calls = answer.toolCalls ?? [];
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: CREATED,
    model,
    system_fingerprint: 'fp_fake',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.content ?? (calls.length > 0 ? null : ''),
          refusal: null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: answer.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    ...(answer.usage
      ? { usage: { ...answer.usage, total_tokens: answer.usage.prompt_tokens + answer.usage.completion_tokens } }
      : {}),
  };
}

/** An error body in OpenAI's shape. */
export function errorJson(status: number, message: string): object {
  const type = status === 401 ? 'invalid_request_error' : status === 429 ? 'rate_limit_error' : 'server_error';
  const code = status === 401 ? 'invalid_api_key' : status === 429 ? 'rate_limit_exceeded' : null;
  return { error: { message, type, param: null, code } };
}
