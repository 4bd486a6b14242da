import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/** A raw HTTP answer: status, headers and body bytes as sent (never decompressed). */
export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The body parsed as JSON, or null when it is not JSON. */
  json(): { errors?: { message: string; extensions?: Record<string, unknown> }[]; data?: unknown } | null;
}

/**
 * Sends one request with node:http, so the test controls every header and how the body is sent:
 * `chunks` are written one by one without a Content-Length (chunked transfer encoding).
 * Write errors of a body the server refused half-way are ignored: the answer is what counts.
 */
export function send(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string; chunks?: readonly Buffer[] } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: opts.method ?? 'POST', headers: opts.headers ?? {} }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (chunk: Buffer) => parts.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(parts);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body,
          json: () => {
            try {
              return JSON.parse(body.toString('utf8'));
            } catch {
              return null;
            }
          },
        });
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    if (opts.chunks) {
      for (const chunk of opts.chunks) request.write(chunk);
      request.end();
    } else {
      request.end(opts.body);
    }
  });
}

/** A JSON GraphQL POST body of exactly `bytes` bytes (padded with spaces, which JSON ignores). */
export function bodyOfBytes(query: string, bytes: number): Buffer {
  const json = JSON.stringify({ query });
  if (json.length > bytes) throw new Error(`the query alone is ${json.length} bytes`);
  return Buffer.from(json + ' '.repeat(bytes - json.length));
}
