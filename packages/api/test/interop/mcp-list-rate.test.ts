import { FakeClock } from '@agent-teams/testkit';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMITED_RPC_CODE } from '../../src/server/mcp/mcp-endpoint.js';
import { codes, createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { connectMcp, postMcp } from './mcp-clients.js';

/**
 * `tools/list` spends the owner's rate limit like a tool call, once per message: a batch of them
 * in one POST answered every tool's schema per message for one request's worth of nothing.
 */
const BURST = 4;
const clock = new FakeClock(0);
let stack: GraphqlStack;
let base: string;
const auth = (token: string) => ({ authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-06-18' });
const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });

beforeAll(async () => {
  stack = await createGraphqlStack({ scheduler: false, rateLimit: { perSecond: 1, burst: BURST }, rateClock: clock });
  ({ url: base } = await stack.server.listen(0, '127.0.0.1'));
});
afterAll(() => stack.close());

describe('tools/list and the rate limit', () => {
  it('charges each tools/list of a batch: the burst is answered, the rest refused with RATE_LIMITED and the wait', async () => {
    clock.advance(60_000);
    const batch = [1, 2, 3, 4, 5, 6].map(list);
    const { status, json } = await postMcp(base, batch, auth(TOKENS.alice));
    expect(status).toBe(200);
    const answers = json as { id: number; result?: { tools: unknown[] }; error?: { code: number; data: unknown } }[];
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(answers.filter((answer) => (answer.result?.tools.length ?? 0) > 0)).toHaveLength(BURST);
    const refused = answers.filter((answer) => answer.error !== undefined);
    expect(refused).toHaveLength(2);
    for (const answer of refused) {
      expect(answer.error).toMatchObject({
        code: RATE_LIMITED_RPC_CODE,
        data: { code: 'RATE_LIMITED', retryAfterMs: 1000 },
      });
    }
    // The same bucket as GraphQL's; another owner's is untouched.
    expect(codes(await stack.gql('{ viewer { id } }', {}, TOKENS.alice))).toEqual(['RATE_LIMITED']);
    expect(codes(await stack.gql('{ viewer { id } }', {}, TOKENS.bob))).toEqual([]);
  });

  it('refuses an SDK client listing on an empty bucket with an McpError carrying the code, and lists after the wait', async () => {
    clock.advance(60_000);
    const client = await connectMcp(base, TOKENS.alice);
    try {
      for (let i = 0; i < BURST; i++) expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      const refused = await client.listTools().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(McpError);
      expect(refused).toMatchObject({
        code: RATE_LIMITED_RPC_CODE,
        data: { code: 'RATE_LIMITED', retryAfterMs: 1000 },
      });
      clock.advance(1_000);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});
