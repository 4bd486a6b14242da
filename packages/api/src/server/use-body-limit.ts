import type { Plugin } from 'graphql-yoga';
import { bodyAlreadyLimited, tooLargeBody } from './body-limit.js';
import { readBoundedBytes } from './read-bounded-text.js';

/**
 * The body limit for requests that reach Yoga without the HTTP server's own check
 * (`limitRequestBodies`): `yoga.fetch`, or `yoga` mounted by a host on its own server. A declared
 * length over `maxBytes` is refused at once; a body without one is counted as it is read and
 * refused at the first byte past the limit, with the same 413 JSON as the HTTP edge's. The rest
 * of such a body is never read (on a host's own server, cancelling it may close the connection
 * before the 413 is read, as with Yoga's own limit). A body that fails to read is answered 400.
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
        let body: Buffer | null;
        try {
          body = await readBoundedBytes(incoming, maxBytes);
        } catch {
          // The client went away or sent a broken stream: its fault, not an unexpected error.
          return new fetchAPI.Response(UNREADABLE_BODY, {
            status: 400,
            headers: { 'content-type': 'application/json; charset=utf-8' },
          });
        }
        if (body === null) return tooLarge();
        return parse(
          new fetchAPI.Request(incoming.url, {
            method: incoming.method,
            headers: incoming.headers,
            body: body as Uint8Array<ArrayBuffer>,
          }),
        );
      });
    },
  };
}

/** The answer to a body that failed to read (code INVALID_INPUT). */
const UNREADABLE_BODY = JSON.stringify({
  errors: [{ message: 'The request body could not be read.', extensions: { code: 'INVALID_INPUT' } }],
});
