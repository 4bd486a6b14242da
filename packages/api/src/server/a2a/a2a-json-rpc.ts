import {
  A2A_VERSION_HEADER,
  type AgentCard,
  Extensions,
  formatSSEErrorEvent,
  formatSSEEvent,
  HTTP_EXTENSION_HEADER,
  SSE_HEADERS,
} from '@a2a-js/sdk';
import { A2A_ERROR_CODE, ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import {
  type A2ARequestHandler,
  defaultServerCallContextBuilder,
  JsonRpcTransportHandler,
  validateVersion,
} from '@a2a-js/sdk/server';

/** The largest JSON-RPC body read (bytes): a message is a task text of at most 8,000 bytes. */
export const A2A_MAX_BODY_BYTES = 1_048_576;

type Rpc = { jsonrpc: '2.0'; id: string | number | null; error?: unknown; result?: unknown };

const json = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const rpcError = (id: Rpc['id'], error: unknown): Rpc => ({
  jsonrpc: '2.0',
  id,
  error: JsonRpcTransportHandler.mapToJSONRPCError(error),
});

/**
 * Answers one A2A JSON-RPC POST through the SDK's transport handler: a JSON response, or an SSE
 * stream for `SendStreamingMessage`/`SubscribeToTask`.
 *
 * @remarks The SDK ships this HTTP step only for Express; this is the same step over the Fetch
 * API (Yoga's request and response), kept line for line with the SDK's `jsonRpcHandler`: the
 * content-type guard, the `A2A-Version` check against the card, the first stream item pulled
 * before the SSE headers (so an early refusal is a plain JSON-RPC error), and errors after them
 * sent as an SSE `error` event. Stopping the stream (the client left) returns the generator, so
 * its follow of the team feed ends.
 */
export async function answerJsonRpc(
  request: Request,
  handler: A2ARequestHandler,
  card: AgentCard,
  onCancel: () => void,
): Promise<Response> {
  const contentType = request.headers.get('content-type');
  if (contentType !== null && contentType.split(';', 1)[0]?.trim().toLowerCase() !== 'application/json') {
    return json(
      rpcError(
        null,
        new ContentTypeNotSupportedError(`Unsupported Content-Type "${contentType}"; expected application/json.`),
      ),
    );
  }
  const body = await readBody(request);
  if (body === null) {
    return json(
      { jsonrpc: '2.0', id: null, error: { code: A2A_ERROR_CODE.INVALID_REQUEST, message: 'Body too large.' } },
      413,
    );
  }
  const id = requestId(body);
  const context = defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(request.headers.get(HTTP_EXTENSION_HEADER) ?? undefined),
    user: undefined,
    headers: Object.fromEntries(request.headers),
    requestedVersion: request.headers.get(A2A_VERSION_HEADER) ?? undefined,
  });
  let answer: Rpc | AsyncGenerator<Rpc, void, undefined>;
  try {
    validateVersion(context.requestedVersion, card, 'JSONRPC');
    answer = (await new JsonRpcTransportHandler(handler).handle(body, context)) as typeof answer;
  } catch (error) {
    const rpc = rpcError(id, error);
    return json(rpc, (rpc.error as { code: number }).code === A2A_ERROR_CODE.INTERNAL_ERROR ? 500 : 200);
  }
  if (!(Symbol.asyncIterator in answer)) return json(answer);
  const stream = answer;
  let first: IteratorResult<Rpc, void>;
  try {
    first = await stream.next();
  } catch (error) {
    return json(rpcError(id, error));
  }
  return new Response(sseBody(stream, first, id, onCancel), { status: 200, headers: SSE_HEADERS });
}

/** The SSE body: the first item already pulled, then the rest; a failure becomes an `error` event. */
function sseBody(
  stream: AsyncGenerator<Rpc, void, undefined>,
  first: IteratorResult<Rpc, void>,
  id: Rpc['id'],
  onCancel: () => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let pending: IteratorResult<Rpc, void> | null = first;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = pending ?? (await stream.next());
        pending = null;
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(formatSSEErrorEvent(rpcError(id, error))));
        controller.close();
      }
    },
    async cancel() {
      // Wakes a follow waiting for the next event; the generator then ends and is released.
      onCancel();
      await stream.return(undefined);
    },
  });
}

/** The body text, or null as soon as it grows past {@link A2A_MAX_BODY_BYTES} (reading stops there). */
async function readBody(request: Request): Promise<string | null> {
  if (Number(request.headers.get('content-length') ?? '0') > A2A_MAX_BODY_BYTES) return null;
  if (request.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > A2A_MAX_BODY_BYTES) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The request's JSON-RPC id when the body parses, for error answers; null otherwise. */
function requestId(body: string): Rpc['id'] {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}
