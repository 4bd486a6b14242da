import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyAlreadyLimited, limitRequestBodies } from '../../src/server/body-limit.js';
import { createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { bodyOfBytes } from './http-client.js';

const MAX_BODY = 4096;
let stack: GraphqlStack;
const headers = { authorization: `Bearer ${TOKENS.alice}`, 'content-type': 'application/json' };

beforeAll(async () => {
  stack = await createGraphqlStack({ scheduler: false, maxBodyBytes: MAX_BODY });
});
afterAll(async () => {
  await stack.close();
});

/** A body that arrives as a stream in three chunks, without a declared length. */
function streamOf(body: Buffer): ReadableStream<Uint8Array> {
  const chunks = [body.subarray(0, 1000), body.subarray(1000, 3000), body.subarray(3000)];
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new Uint8Array(chunk));
      controller.close();
    },
  });
}

async function expectStatus(answer: Response, status: number): Promise<void> {
  expect(answer.status).toBe(status);
  const json = (await answer.json()) as { errors?: { extensions?: unknown }[]; data?: unknown };
  if (status === 413) {
    expect(json.errors?.[0]?.extensions).toEqual({ code: 'QUERY_LIMIT', limit: 'maxBodyBytes', max: MAX_BODY });
  } else {
    expect(json.errors ?? []).toEqual([]);
    expect(json.data).toEqual({ viewer: { id: expect.any(String) } });
  }
}

// The HTTP edge's limit is tested in http-limits.test.ts; these requests skip it (`yoga.fetch`,
// as a host mounting `yoga` on its own server would), so `useBodyLimit` must hold the same line.
describe('the body limit without the HTTP edge (yoga.fetch)', () => {
  it.each([
    [MAX_BODY - 1, 200],
    [MAX_BODY, 200],
    [MAX_BODY + 1, 413],
  ])('answers a %d-byte body with a declared length: %d', async (bytes, status) => {
    const body = bodyOfBytes('{ viewer { id } }', bytes);
    const answer = await stack.server.yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
      body,
    });
    await expectStatus(answer, status);
  });

  it.each([
    [MAX_BODY - 1, 200],
    [MAX_BODY, 200],
    [MAX_BODY + 1, 413],
  ])('counts a streamed %d-byte body without a declared length: %d', async (bytes, status) => {
    const answer = await stack.server.yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers,
      body: streamOf(bodyOfBytes('{ viewer { id } }', bytes)),
      duplex: 'half',
    } as RequestInit);
    await expectStatus(answer, status);
  });

  it('answers a body that fails mid-stream with 400 INVALID_INPUT, not as an unexpected error', async () => {
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"query":'));
        controller.error(new Error('the client went away'));
      },
    });
    const answer = await stack.server.yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers,
      body: broken,
      duplex: 'half',
    } as RequestInit);
    expect(answer.status).toBe(400);
    const json = (await answer.json()) as { errors: { extensions?: { code?: string } }[] };
    expect(json.errors[0]?.extensions?.code).toBe('INVALID_INPUT');
    expect(stack.logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
  });
});

describe('the mark the HTTP edge leaves on a body it checked', () => {
  it('is set once a POST body was read within the limit, and never on a GET or a refused body', async () => {
    const seen: { method: string | undefined; limited: boolean }[] = [];
    const server = createServer(
      limitRequestBodies((request, response) => {
        seen.push({ method: request.method, limited: bodyAlreadyLimited(request) });
        response.end('ok');
      }, 16),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      expect((await fetch(url, { method: 'POST', body: 'x'.repeat(16) })).status).toBe(200);
      expect((await fetch(url)).status).toBe(200);
      expect((await fetch(url, { method: 'POST', body: 'x'.repeat(17) })).status).toBe(413);
      expect(seen).toEqual([
        { method: 'POST', limited: true },
        { method: 'GET', limited: false },
      ]);
      expect(bodyAlreadyLimited(undefined)).toBe(false);
      expect(bodyAlreadyLimited({})).toBe(false);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
