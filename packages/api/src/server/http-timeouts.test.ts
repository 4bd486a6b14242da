import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphqlStack, type GraphqlStack } from '../../test/graphql/graphql-stack.js';
import { HTTP_TIMEOUTS } from './create-server.js';

let stack: GraphqlStack;
let port: number;

beforeAll(async () => {
  stack = await createGraphqlStack({ scheduler: false });
  port = Number(new URL((await stack.server.listen(0, '127.0.0.1')).url).port);
});
afterAll(() => stack.close());

describe('a peer that trickles its request headers', () => {
  it(`is answered 408 and dropped within a second of the ${HTTP_TIMEOUTS.headersMs / 1000} s header timeout`, async () => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    socket.on('error', () => undefined);
    const started = Date.now();
    // Never the blank line that ends the headers: one more header line each second.
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const trickle = setInterval(() => socket.write(`X-Slow-${Date.now()}: 1\r\n`), 1_000);
    const closedAfterMs = await new Promise<number>((resolve) =>
      socket.once('close', () => resolve(Date.now() - started)),
    );
    clearInterval(trickle);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    // Node checked its connections every 30 s: the peer stayed up to 40 s.
    expect(closedAfterMs).toBeLessThan(HTTP_TIMEOUTS.headersMs + HTTP_TIMEOUTS.checkEveryMs + 1_500);
    expect(closedAfterMs).toBeGreaterThanOrEqual(HTTP_TIMEOUTS.headersMs - 100);
  }, 60_000);
});
