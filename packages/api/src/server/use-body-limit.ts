import type { Plugin } from 'graphql-yoga';
import { bodyAlreadyLimited, tooLargeBody } from './body-limit.js';

/**
 * The body limit for requests that reach Yoga without the HTTP server's own check
 * (`limitRequestBodies`): `yoga.fetch`, or `yoga` mounted by a host on its own server. A declared
 * length over `maxBytes` is answered 413 at once; a body without one is counted as it is read
 * and answered 413 at the first byte past the limit, with the same JSON as the HTTP edge's.
 *
 * @remarks Replaces Yoga's own limit (`maxRequestBodySize`, off), which piped every body once
 * more through a counting stream, also the bodies the HTTP edge had already read and checked,
 * and whose end created an abort error: together about 4 % of a `sendRequest`'s CPU.
 */
export function useBodyLimit(maxBytes: number): Plugin {
  return {
    onRequestParse({ request, serverContext, requestParser, setRequestParser, fetchAPI, endResponse }) {
      if (bodyAlreadyLimited((serverContext as { req?: unknown }).req)) return;
      const tooLarge = () =>
        new fetchAPI.Response(tooLargeBody(maxBytes), {
          status: 413,
          headers: { 'content-type': 'application/json; charset=utf-8' },
        });
      const declared = request.headers.get('content-length');
      if (declared !== null && Number(declared) > maxBytes) {
        endResponse(tooLarge());
        return;
      }
      if (requestParser === undefined || request.body === null) return;
      const parse = requestParser;
      setRequestParser(async (incoming) => {
        const body = await readAtMost(incoming, maxBytes);
        if (body === null) return tooLarge();
        return parse(new fetchAPI.Request(incoming.url, { method: incoming.method, headers: incoming.headers, body }));
      });
    },
  };
}

/** The body's bytes, or null at the first byte past `maxBytes` (the rest is never read). */
async function readAtMost(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(received);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}
