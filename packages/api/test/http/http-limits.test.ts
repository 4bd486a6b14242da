import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { asMemberId, asOwnerId, asTeamId } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_LIMITS } from '../../src/server/request-limits.js';
import { createTeam } from '../graphql/fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { type ClientPool, openLivePool } from '../live/live-clients.js';
import { bodyOfBytes, send } from './http-client.js';

const MAX_BODY = 4096;
let stack: GraphqlStack;
let base: string;
let pool: ClientPool;
const auth = { authorization: `Bearer ${TOKENS.alice}`, 'content-type': 'application/json' };

beforeAll(async () => {
  stack = await createGraphqlStack({
    scheduler: false,
    maxBodyBytes: MAX_BODY,
    live: { allowedOrigins: ['https://app.example'] },
    pageHtml: `<!doctype html><title>home</title>${'<p>filler</p>'.repeat(500)}`,
  });
  ({ pool, url: base } = await openLivePool(stack.server));
});
afterAll(async () => {
  await pool.dispose();
  await stack.close();
});

describe('request body limit', () => {
  it.each([
    [MAX_BODY - 1, 200],
    [MAX_BODY, 200],
    [MAX_BODY + 1, 413],
  ])('answers a %d-byte body with Content-Length %d', async (bytes, status) => {
    const answer = await send(`${base}/graphql`, { headers: auth, body: bodyOfBytes('{ viewer { id } }', bytes) });
    expect(answer.status).toBe(status);
    if (status === 413) {
      expect(answer.json()?.errors?.[0]?.extensions).toEqual({
        code: 'QUERY_LIMIT',
        limit: 'maxBodyBytes',
        max: MAX_BODY,
      });
    }
  });

  it.each([
    [MAX_BODY - 1, 200],
    [MAX_BODY, 200],
    [MAX_BODY + 1, 413],
  ])('counts a chunked %d-byte body as it arrives (%d)', async (bytes, status) => {
    const body = bodyOfBytes('{ viewer { id } }', bytes);
    const chunks = [body.subarray(0, 1000), body.subarray(1000, 3000), body.subarray(3000)];
    const answer = await send(`${base}/graphql`, { headers: { ...auth, 'transfer-encoding': 'chunked' }, chunks });
    expect(answer.status).toBe(status);
  });

  it('refuses a declared 10 MB body without a token, before reading it', async () => {
    const answer = await send(`${base}/graphql`, {
      headers: { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) },
      body: Buffer.alloc(0),
    });
    expect(answer.status).toBe(413);
  });
});

describe('malformed requests', () => {
  it('answers invalid JSON with 400 and a GraphQL error body that does not quote the body', async () => {
    const long = `{"query": ${'x'.repeat(MAX_BODY - 20)}`;
    for (const body of ['{"query": ', 'not json', '\u0000\u0001', long]) {
      const answer = await send(`${base}/graphql`, { headers: auth, body });
      expect(answer.status).toBe(400);
      const [error] = answer.json()?.errors ?? [];
      expect(error).toMatchObject({ message: 'POST body sent invalid JSON.', extensions: { code: 'BAD_REQUEST' } });
      // The JSON parser's message quoted the body (a 300 KB body came back whole).
      expect(answer.body.length).toBeLessThan(300);
      expect(answer.body.toString()).not.toContain('query');
    }
  });

  it('reveals no names of the schema in suggestions (fields, arguments, enum values, variables)', async () => {
    const probes: [string, Record<string, unknown>][] = [
      ['{ viewer { idd } }', {}],
      ['{ viewer { teams(firts: 1) { totalCount } } }', {}],
      ['{ team(id: "x") { jobs(statuses: [RUNNNING]) { totalCount } } }', {}],
      ['query($s: [JobStatus!]) { team(id: "x") { jobs(statuses: $s) { totalCount } } }', { s: ['RUNNNING'] }],
    ];
    for (const [query, variables] of probes) {
      const answer = await send(`${base}/graphql`, { headers: auth, body: JSON.stringify({ query, variables }) });
      const errors = (answer.json()?.errors ?? []) as { message: string }[];
      expect(errors.length).toBeGreaterThan(0);
      for (const error of errors) {
        expect(error.message).not.toMatch(/Did you mean/);
        expect(error.message).not.toMatch(/\bRUNNING\b|\bRESUMING\b|\bfirst\b|"id"/);
      }
    }
  });

  it('refuses batched operation arrays', async () => {
    const body = JSON.stringify([{ query: '{ viewer { id } }' }, { query: '{ viewer { id } }' }]);
    const answer = await send(`${base}/graphql`, { headers: auth, body });
    expect(answer.status).toBe(400);
    expect(answer.json()?.errors?.length).toBeGreaterThan(0);
  });

  it('serves no subscription over HTTP (server-sent events or JSON)', async () => {
    const team = await createTeam(stack);
    const query = `subscription { teamEvents(teamId: "${team.id}") { seq } }`;
    const sse = await send(`${base}/graphql`, {
      headers: { ...auth, accept: 'text/event-stream' },
      body: JSON.stringify({ query }),
    });
    expect(sse.body.toString()).toContain('INVALID_INPUT');
    expect(sse.body.toString()).not.toContain('"seq"');
    expect(codes(await stack.gql(query))).toEqual(['INVALID_INPUT']);
  });
});

describe('cost with variables and the answer ceiling', () => {
  const NESTED = `query($n: Int) { viewer { teams(first: $n) { edges { node {
    jobs(first: $n) { edges { node { text team { jobs(first: $n) { edges { node { text } } } } } } } } } } } }`;

  it('counts list sizes given as variables, over HTTP and WebSocket alike', async () => {
    expect(codes(await stack.gql(NESTED, { n: 2 }))).toEqual([]);
    const refused = await stack.gql(NESTED, { n: 100 });
    expect(refused.errors[0]?.extensions).toMatchObject({ code: 'QUERY_LIMIT', limit: 'maxCost' });
    expect(codes(await stack.gql(NESTED))).toEqual(['QUERY_LIMIT']);
    const raw = await pool.raw();
    await raw.init(TOKENS.alice);
    raw.send({ type: 'subscribe', id: 'bomb', payload: { query: NESTED, variables: { n: 100 } } });
    const frame = await raw.waitFor((f) => f.id === 'bomb');
    expect(frame.type).toBe('error');
    expect(JSON.stringify(frame.payload)).toContain('maxCost');
    raw.socket.close();
  });

  it('refuses an answer over the size ceiling before serializing it, on both transports', async () => {
    const team = await createTeam(stack, TOKENS.bob);
    // 7,980 bytes in 1,995 characters: within both limits of a task.
    const text = '😀'.repeat(1_995);
    // Sent through the core: each request's body would be over this stack's 4 KiB body limit.
    for (let i = 0; i < 80; i++) {
      const jobs = await stack.core.requests.send(asOwnerId('bob'), {
        teamId: asTeamId(team.id),
        memberIds: [asMemberId(team.members[0]?.id as string)],
        text: `${i}${text}`,
        clientRequestId: `big-${i}`,
      });
      expect(jobs).toHaveLength(1);
    }
    // 80 jobs × 30 aliases × 8 KB: cheap to count (about 2,500 fields), 19 MB of text.
    const aliases = Array.from({ length: 30 }, (_, i) => `t${i}: text`).join(' ');
    const query = `{ team(id: "${team.id}") { jobs(first: 100) { edges { node { ${aliases} } } } } }`;
    const http = await stack.gql(query, {}, TOKENS.bob);
    expect(http.errors[0]?.extensions).toMatchObject({ code: 'QUERY_LIMIT', limit: 'maxAnswerBytes' });
    expect(http.data).toBeNull();
    const raw = await pool.raw();
    await raw.init(TOKENS.bob);
    raw.send({ type: 'subscribe', id: 'big', payload: { query } });
    const frame = await raw.waitFor((f) => f.id === 'big');
    expect(JSON.stringify(frame.payload)).toContain('maxAnswerBytes');
    expect(JSON.stringify(frame.payload).length).toBeLessThan(1000);
    expect(REQUEST_LIMITS.maxAnswerBytes).toBeLessThan(80 * 30 * 7_990);
    raw.socket.close();
  });
});

describe('browser boundaries', () => {
  const preflight = (origin: string) =>
    send(`${base}/graphql`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  it('answers CORS for configured, loopback and same origins, never with credentials', async () => {
    for (const origin of ['https://app.example', 'http://localhost:5173', base]) {
      const answer = await preflight(origin);
      expect(answer.headers['access-control-allow-origin']).toBe(origin);
      expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
      expect(String(answer.headers['access-control-allow-headers'])).toContain('authorization');
    }
  });

  it('gives a foreign origin no CORS headers, on the preflight and on the request itself', async () => {
    const answer = await preflight('https://evil.example');
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    const post = await send(`${base}/graphql`, {
      headers: { ...auth, origin: 'https://evil.example' },
      body: JSON.stringify({ query: '{ viewer { id } }' }),
    });
    expect(post.headers['access-control-allow-origin']).toBeUndefined();
    expect(post.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('compresses GraphiQL and the home page with brotli or gzip when accepted, and not otherwise', async () => {
    for (const path of ['/graphql', '/']) {
      const plain = await send(`${base}${path}`, { method: 'GET', headers: { accept: 'text/html' } });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toContain('Accept-Encoding');
      const br = await send(`${base}${path}`, {
        method: 'GET',
        headers: { accept: 'text/html', 'accept-encoding': 'gzip, deflate, br' },
      });
      expect(br.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      const gzip = await send(`${base}${path}`, {
        method: 'GET',
        headers: { accept: 'text/html', 'accept-encoding': 'gzip, br;q=0' },
      });
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
      expect(br.body.length).toBeLessThan(plain.body.length / 2);
    }
  });
});
