import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
