import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/** The default largest request body (1 MiB): a GraphQL document with its variables is far smaller. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Wraps a Node request handler so no request body over `maxBytes` is ever parsed: a declared
 * `Content-Length` above it is answered 413 at once, and a chunked body is counted as it arrives
 * and answered 413 at the first byte past the limit. A body within the limit is handed on whole.
 *
 * @remarks The body is read here, into one buffer, and given to the handler as `request.body`
 * (which `@whatwg-node/server` uses instead of reading the stream), so Yoga never sees more than
 * the limit. The 413 answer is a GraphQL error (code QUERY_LIMIT, `limit: "maxBodyBytes"`) and
 * closes the connection: the rest of an oversized upload is never read.
 */
export function limitRequestBodies(
  handler: RequestListener,
  maxBytes: number,
  corsHeaders: (request: IncomingMessage) => Record<string, string> = () => ({}),
): RequestListener {
  return (request, response) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') {
      handler(request, response);
      return;
    }
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      tooLarge(response, maxBytes, corsHeaders(request));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      received += chunk.length;
      if (received > maxBytes) {
        refused = true;
        chunks.length = 0;
        tooLarge(response, maxBytes, corsHeaders(request));
        return;
      }
      chunks.push(chunk);
    });
    request.once('end', () => {
      if (refused) return;
      (request as IncomingMessage & { body?: Buffer }).body = Buffer.concat(chunks, received);
      limited.add(request);
      handler(request, response);
    });
  };
}

/** The Node requests whose body {@link limitRequestBodies} read and found within its limit. */
const limited = new WeakSet<object>();

/** True when `request` (a Node request) came through {@link limitRequestBodies} with its body read. */
export function bodyAlreadyLimited(request: unknown): boolean {
  return typeof request === 'object' && request !== null && limited.has(request);
}

/** The JSON of a 413 answer: a GraphQL error (code QUERY_LIMIT, `limit: "maxBodyBytes"`). */
export function tooLargeBody(maxBytes: number): string {
  return JSON.stringify({
    errors: [
      {
        message: `The request body exceeds the limit of ${maxBytes} bytes.`,
        extensions: { code: 'QUERY_LIMIT', limit: 'maxBodyBytes', max: maxBytes },
      },
    ],
  });
}

/**
 * Answers 413 with a GraphQL error body; Node closes the connection once it is sent (what is
 * still arriving of the body is discarded, never buffered).
 */
function tooLarge(response: ServerResponse, maxBytes: number, cors: Record<string, string>): void {
  const body = tooLargeBody(maxBytes);
  response.shouldKeepAlive = false;
  response.writeHead(413, {
    ...cors,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}
