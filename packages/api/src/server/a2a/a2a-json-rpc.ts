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
import type { Logger } from '@agent-teams/core';
import { UNEXPECTED_ERROR_MESSAGE } from '../mask-error.js';
import { readBoundedText } from '../read-bounded-text.js';

type Rpc = { jsonrpc: '2.0'; id: string | number | null; error?: unknown; result?: unknown };

const json = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** What answering one JSON-RPC POST uses. */
export interface JsonRpcCall {
  readonly handler: A2ARequestHandler;
  readonly card: AgentCard;
  readonly logger: Logger;
  /** The largest body read (bytes): the server's one body limit. */
  readonly maxBodyBytes: number;
  /** Called when the client stops reading a stream (it went away). */
  readonly onCancel: () => void;
}

/**
 * The JSON-RPC error of anything thrown. The SDK answers an error that is not one of its own
 * with the error's message as an internal error; that message is logged and masked here, so no
 * internals (a driver message, a TypeError) reach the client.
 */
function rpcError(id: Rpc['id'], error: unknown, logger: Logger): Rpc {
  const mapped = JsonRpcTransportHandler.mapToJSONRPCError(error);
  return { jsonrpc: '2.0', id, error: masked(mapped, logger, error) };
}

function masked(error: { code: number; message: string }, logger: Logger, cause: unknown = error.message) {
  if (error.code !== A2A_ERROR_CODE.INTERNAL_ERROR || error.message === UNEXPECTED_ERROR_MESSAGE) return error;
  logger.error('unexpected error in an A2A request', { error: cause });
  return { code: A2A_ERROR_CODE.INTERNAL_ERROR, message: UNEXPECTED_ERROR_MESSAGE };
}

/** The request object, or the JSON-RPC error of a body that is not one (the SDK's own answers). */
function parseRequest(body: string): { request: Record<string, unknown> } | { error: Rpc } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return {
      error: {
        jsonrpc: '2.0',
        id: null,
        error: { code: A2A_ERROR_CODE.PARSE_ERROR, message: 'Invalid JSON payload.' },
      },
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      error: {
        jsonrpc: '2.0',
        id: null,
        error: { code: A2A_ERROR_CODE.INVALID_REQUEST, message: 'Invalid JSON-RPC Request.' },
      },
    };
  }
  return { request: value as Record<string, unknown> };
}

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
export async function answerJsonRpc(request: Request, call: JsonRpcCall): Promise<Response> {
  const { handler, card, logger, onCancel } = call;
  const contentType = request.headers.get('content-type');
  if (contentType !== null && contentType.split(';', 1)[0]?.trim().toLowerCase() !== 'application/json') {
    return json(
      rpcError(
        null,
        new ContentTypeNotSupportedError(`Unsupported Content-Type "${contentType}"; expected application/json.`),
        logger,
      ),
    );
  }
  const body = await readBoundedText(request, call.maxBodyBytes);
  if (body === null) {
    return json(
      { jsonrpc: '2.0', id: null, error: { code: A2A_ERROR_CODE.INVALID_REQUEST, message: 'Body too large.' } },
      413,
    );
  }
  const parsed = parseRequest(body);
  if ('error' in parsed) return json(parsed.error);
  const id = typeof parsed.request.id === 'string' || typeof parsed.request.id === 'number' ? parsed.request.id : null;
  const context = defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(request.headers.get(HTTP_EXTENSION_HEADER) ?? undefined),
    user: undefined,
    headers: Object.fromEntries(request.headers),
    requestedVersion: request.headers.get(A2A_VERSION_HEADER) ?? undefined,
  });
  let answer: Rpc | AsyncGenerator<Rpc, void, undefined>;
  try {
    validateVersion(context.requestedVersion, card, 'JSONRPC');
    answer = (await new JsonRpcTransportHandler(handler).handle(parsed.request, context)) as typeof answer;
  } catch (error) {
    const rpc = rpcError(id, error, logger);
    return json(rpc, (rpc.error as { code: number }).code === A2A_ERROR_CODE.INTERNAL_ERROR ? 500 : 200);
  }
  if (!(Symbol.asyncIterator in answer)) {
    const error = answer.error as { code: number; message: string } | undefined;
    return json(error === undefined ? answer : { ...answer, error: masked(error, logger) });
  }
  const stream = answer;
  let first: IteratorResult<Rpc, void>;
  try {
    first = await stream.next();
  } catch (error) {
    return json(rpcError(id, error, logger));
  }
  return new Response(
    sseBody(stream, first, (error) => rpcError(id, error, logger), onCancel),
    {
      status: 200,
      headers: SSE_HEADERS,
    },
  );
}

/** The SSE body: the first item already pulled, then the rest; a failure becomes an `error` event. */
function sseBody(
  stream: AsyncGenerator<Rpc, void, undefined>,
  first: IteratorResult<Rpc, void>,
  toError: (error: unknown) => Rpc,
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
        controller.enqueue(encoder.encode(formatSSEErrorEvent(toError(error))));
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
