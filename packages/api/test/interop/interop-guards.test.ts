import type { Client as A2aClient } from '@a2a-js/sdk/client';
import { FakeClock } from '@agent-teams/testkit';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, type TeamFixture } from '../graphql/fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { send } from '../http/http-client.js';
import { asTask, connectA2a, sendParams, userMessage } from './a2a-clients.js';
import { callTool, connectMcp } from './mcp-clients.js';

/**
 * The server's guards at the interop edges: one body limit for every path, one rate limit per
 * owner over GraphQL, MCP owner tools and A2A sends, one CORS allowlist.
 */
const BURST = 3;
const MAX_BODY = 4096;
const clock = new FakeClock(0);
let stack: GraphqlStack;
let base: string;
let team: TeamFixture;

beforeAll(async () => {
  stack = await createGraphqlStack({
    scheduler: false,
    rateLimit: { perSecond: 1, burst: BURST },
    rateClock: clock,
    maxBodyBytes: MAX_BODY,
    live: { allowedOrigins: ['https://app.example'] },
  });
  ({ url: base } = await stack.server.listen(0, '127.0.0.1'));
  team = await createTeam(stack, TOKENS.alice);
});
afterAll(() => stack.close());

/** A JSON body of exactly `bytes` bytes (padded with spaces, which JSON ignores). */
const padded = (value: unknown, bytes: number) => {
  const json = JSON.stringify(value);
  return Buffer.from(json + ' '.repeat(bytes - json.length));
};

describe('one rate limit per owner across GraphQL, MCP and A2A', () => {
  let mcp: McpClient;
  let a2a: A2aClient;

  beforeAll(async () => {
    mcp = await connectMcp(base, TOKENS.alice);
    a2a = await connectA2a(`${base}/a2a/${team.id}/${team.members[0]?.id}`, TOKENS.alice);
    clock.advance(60_000);
  });
  afterAll(() => mcp.close());

  it(`runs ${BURST} MCP owner tool calls of a burst and refuses the next one, and A2A sends and GraphQL with it`, async () => {
    for (let i = 0; i < BURST; i++) expect((await callTool(mcp, 'list_teams', {})).isError).toBe(false);
    const refused = await callTool(mcp, 'list_teams', {});
    expect(refused).toEqual({
      isError: true,
      json: { error: { code: 'RATE_LIMITED', message: expect.any(String), retryAfterMs: 1000 } },
    });
    const send = a2a.sendMessage(sendParams(userMessage('one more'), true));
    await expect(send).rejects.toThrow(/operations/);
    expect(codes(await stack.gql('{ viewer { id } }', {}, TOKENS.alice))).toEqual(['RATE_LIMITED']);
  });

  it('never refuses answers and cancels, and never slows another owner', async () => {
    const respond = await callTool(mcp, 'respond', { job_id: 'job_none', response: 'x', client_request_id: 'r' });
    const cancel = await callTool(mcp, 'cancel_job', { job_id: 'job_none' });
    for (const answer of [respond, cancel]) expect(answer.json).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const bob = await connectMcp(base, TOKENS.bob);
    expect((await callTool(bob, 'list_teams', {})).isError).toBe(false);
    await bob.close();
  });

  it('serves an A2A send again once a token refilled', async () => {
    clock.advance(1000);
    const task = asTask(await a2a.sendMessage(sendParams(userMessage('after the wait'), true)));
    expect((await stack.gql('query($id: ID!) { job(id: $id) { text } }', { id: task.id })).status).toBe(429);
    clock.advance(1000);
    expect((await stack.gql('query($id: ID!) { job(id: $id) { text } }', { id: task.id })).data).toEqual({
      job: { text: 'after the wait' },
    });
  });
});

describe('one body limit on every path, before anything is parsed', () => {
  const mcpHeaders = {
    authorization: `Bearer ${TOKENS.bob}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  };
  const a2aHeaders = {
    authorization: `Bearer ${TOKENS.alice}`,
    'content-type': 'application/json',
    'a2a-version': '1.0',
  };

  it.each([
    [MAX_BODY - 1, 200],
    [MAX_BODY, 200],
    [MAX_BODY + 1, 413],
  ])('answers /mcp and /a2a bodies of %d bytes with %d', async (bytes, status) => {
    const mcp = await send(`${base}/mcp`, {
      headers: mcpHeaders,
      body: padded({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, bytes),
    });
    const a2a = await send(`${base}/a2a/${team.id}/${team.members[0]?.id}`, {
      headers: a2aHeaders,
      body: padded({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'job_none' } }, bytes),
    });
    expect([mcp.status, a2a.status]).toEqual([status, status]);
  });
});

describe('one CORS allowlist', () => {
  it.each(['/mcp', `/a2a/x/y`])(
    'answers a preflight to %s for allowed origins only, never with credentials',
    async (path) => {
      const preflight = (origin: string) =>
        send(`${base}${path}`, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization',
          },
        });
      const allowed = await preflight('https://app.example');
      expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example');
      expect(allowed.headers['access-control-allow-credentials']).toBeUndefined();
      const other = await preflight('https://evil.example');
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    },
  );

  it('lets a page send the headers the MCP and A2A clients send, and read the ones it needs', async () => {
    const sent = 'authorization, content-type, mcp-protocol-version, mcp-session-id, last-event-id, a2a-version';
    const preflight = await send(`${base}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': sent,
      },
    });
    const allowedHeaders = String(preflight.headers['access-control-allow-headers']).split(/,\s*/);
    for (const header of sent.split(', ')) expect(allowedHeaders).toContain(header);
    const answer = await send(`${base}/graphql`, {
      headers: { origin: 'https://app.example', 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    const exposed = String(answer.headers['access-control-expose-headers']).split(/,\s*/);
    for (const header of ['retry-after', 'www-authenticate', 'x-request-id']) expect(exposed).toContain(header);
    expect(answer.headers.vary).toMatch(/origin/i);
    // Another origin's answer carries no CORS headers but still varies by origin (shared caches).
    const other = await send(`${base}/graphql`, {
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers.vary).toMatch(/origin/i);
  });

  it('answers an oversized body with CORS headers, so a page sees the 413 and not a network error', async () => {
    const tooLarge = await send(`${base}/graphql`, {
      headers: { origin: 'https://app.example', 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ __typename } #${'x'.repeat(MAX_BODY)}` }),
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers['access-control-allow-origin']).toBe('https://app.example');
    const refused = await send(`${base}/graphql`, {
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ __typename } #${'x'.repeat(MAX_BODY)}` }),
    });
    expect(refused.status).toBe(413);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });
});
