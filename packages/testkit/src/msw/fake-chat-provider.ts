import { completionChunks, completionJson, errorJson, type FakeCompletion } from './chat-wire-format.js';

/** What the fake provider answers to one request. */
export type FakeReply =
  /** A model answer: SSE when the request streams, JSON otherwise. */
  | ({ readonly kind: 'answer' } & FakeCompletion)
  /** An HTTP error with an OpenAI error body (429, 500, 401, ...). */
  | {
      readonly kind: 'error';
      readonly status: number;
      readonly message?: string;
      readonly headers?: Record<string, string>;
    }
  /** Exactly these SSE `data:` payloads (strings are sent verbatim), then the body closes. */
  | { readonly kind: 'raw-sse'; readonly data: readonly string[] }
  /** A stream that sends `data` and then stays open until the client goes away. */
  | { readonly kind: 'hang'; readonly data?: readonly string[] };

/** One request the fake provider received. */
export interface RecordedChatRequest {
  /** The parsed JSON body (`model`, `messages`, `tools`, `stream`, ...). */
  readonly body: ChatRequestBody;
  readonly authorization: string | null;
}

/** The parts of a Chat Completions request body the tests read. */
export interface ChatRequestBody {
  readonly model: string;
  readonly messages: readonly {
    readonly role: string;
    readonly content?: string | null;
    readonly tool_calls?: readonly { id: string; function: { name: string; arguments: string } }[];
    readonly tool_call_id?: string;
  }[];
  readonly stream?: boolean;
  readonly stream_options?: { include_usage?: boolean };
  readonly tools?: readonly { function: { name: string } }[];
  readonly tool_choice?: unknown;
  readonly temperature?: number;
  readonly [key: string]: unknown;
}

/** Chooses the reply to the `index`-th request (0-based). */
export type FakeResponder = (body: ChatRequestBody, index: number) => FakeReply;

const encoder = new TextEncoder();

/**
 * A fake OpenAI-compatible Chat Completions provider that speaks the real wire format
 * (`POST <baseUrl>/chat/completions`, JSON or SSE `data:` chunks ending with `[DONE]`).
 *
 * @remarks Framework-free: `handle(request)` maps a fetch `Request` to a `Response`, so msw (see
 * {@link chatCompletionHandler}) or any fetch-level mock can serve it. Replies come from a queue
 * (`enqueue`) or, when the queue is empty, from a responder function. Every request is recorded;
 * `closedStreams` counts hanging streams whose request the client aborted (a cancelled run must).
 */
export class FakeChatProvider {
  readonly requests: RecordedChatRequest[] = [];
  readonly #queue: FakeReply[] = [];
  #responder: FakeResponder | null = null;
  #closedStreams = 0;
  #openHangs = 0;

  /** Queues replies, answered in order. */
  enqueue(...replies: FakeReply[]): this {
    this.#queue.push(...replies);
    return this;
  }

  /** Answers requests the queue does not cover. */
  respondWith(responder: FakeResponder): this {
    this.#responder = responder;
    return this;
  }

  /** Hanging streams the client closed (aborted or stopped reading). */
  get closedStreams(): number {
    return this.#closedStreams;
  }

  /** Hanging streams still open. */
  get openStreams(): number {
    return this.#openHangs;
  }

  /** Serves one request. */
  async handle(request: Request): Promise<Response> {
    const body = (await request.json()) as ChatRequestBody;
    const index = this.requests.length;
    this.requests.push({ body, authorization: request.headers.get('authorization') });
    const reply = this.#queue.shift() ?? this.#responder?.(body, index);
    if (!reply) return json(500, errorJson(500, 'the fake provider has no reply queued'));
    switch (reply.kind) {
      case 'error':
        return json(
          reply.status,
          errorJson(reply.status, reply.message ?? `fake error ${reply.status}`),
          reply.headers,
        );
      case 'answer':
        if (body.stream) {
          const data = completionChunks(body.model, reply, body.stream_options?.include_usage === true);
          return sse(data.map((d) => (d === '[DONE]' ? d : JSON.stringify(d))));
        }
        return json(200, completionJson(body.model, reply));
      case 'raw-sse':
        return sse(reply.data);
      case 'hang':
        return this.#hang(reply.data ?? [], request.signal);
    }
  }

  #hang(data: readonly string[], signal: AbortSignal): Response {
    this.#openHangs += 1;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      this.#openHangs -= 1;
      this.#closedStreams += 1;
    };
    // A client abort reaches the handler as the request's signal (or as a cancel of the body).
    if (signal.aborted) close();
    else signal.addEventListener('abort', close, { once: true });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const item of data) controller.enqueue(encoder.encode(`data: ${item}\n\n`));
      },
      cancel: close,
    });
    return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }
}

function json(status: number, value: object, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function sse(data: readonly string[]): Response {
  const text = data.map((item) => `data: ${item}\n\n`).join('');
  return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

/** The part of msw's `http` namespace the handler needs (testkit does not depend on msw). */
export interface HttpPostFactory<Handler> {
  post(path: string, resolver: (info: { request: Request }) => Promise<Response>): Handler;
}

/**
 * An msw request handler serving `provider` at `<baseUrl>/chat/completions`. Pass msw's `http`:
 * `server.use(chatCompletionHandler(http, 'https://llm.test/v1', provider))`.
 */
export function chatCompletionHandler<Handler>(
  http: HttpPostFactory<Handler>,
  baseUrl: string,
  provider: FakeChatProvider,
): Handler {
  return http.post(`${baseUrl.replace(/\/+$/, '')}/chat/completions`, ({ request }) => provider.handle(request));
}
