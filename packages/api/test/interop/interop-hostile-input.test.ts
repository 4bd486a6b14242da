import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/server/body-limit.js';
import { type CollabStack, OWNER_TOKENS, type PairTeam, pairPerFile } from '../collaboration/collab-stack.js';

let stack: CollabStack;
let team: PairTeam;
let agentPath: string;

// Creation ensures the member conversations itself: the team is READY without a scheduler.
pairPerFile(
  (fixture) => {
    ({ stack, team } = fixture);
    agentPath = `/a2a/${team.id}/${team.members[0].id}`;
  },
  { scheduler: false, listen: false },
);

const auth = { authorization: `Bearer ${OWNER_TOKENS.alice}` };

function post(path: string, body: string, headers: Record<string, string> = {}) {
  return stack.app.server.yoga.fetch(`http://localhost${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth, ...headers },
    body,
  });
}

/** A valid JSON-RPC body of exactly `bytes` UTF-8 bytes, padded inside a string with `unit`. */
function paddedBody(template: (pad: string) => string, bytes: number, unit: string): string {
  const base = Buffer.byteLength(template(''), 'utf8');
  const unitBytes = Buffer.byteLength(unit, 'utf8');
  const units = Math.floor((bytes - base) / unitBytes);
  const rest = bytes - base - units * unitBytes;
  const body = template(unit.repeat(units) + 'x'.repeat(rest));
  expect(Buffer.byteLength(body, 'utf8')).toBe(bytes);
  return body;
}

const a2aBody = (pad: string) =>
  `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"job_none","pad":"${pad}"}}`;
const mcpBody = (pad: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"pad":"${pad}"}}}`;

describe('body limits, at n - 1, n and n + 1 bytes', () => {
  it.each([
    ['ASCII', 'a'],
    ['CJK', '数'],
    ['emoji', '🙂'],
  ])('A2A JSON-RPC reads up to %s bodies of exactly the limit and refuses one byte more', async (_, unit) => {
    for (const delta of [-1, 0]) {
      const response = await post(agentPath, paddedBody(a2aBody, DEFAULT_MAX_BODY_BYTES + delta, unit), {
        'a2a-version': '1.0',
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: 1, error: { code: -32001 } });
    }
    const over = await post(agentPath, paddedBody(a2aBody, DEFAULT_MAX_BODY_BYTES + 1, unit), { 'a2a-version': '1.0' });
    expect(over.status).toBe(413);
  });

  it.each([
    ['ASCII', 'a'],
    ['CJK', '数'],
    ['emoji', '🙂'],
  ])('MCP reads %s bodies of exactly the limit and refuses one byte more', async (_, unit) => {
    const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    for (const delta of [-1, 0]) {
      const response = await post('/mcp', paddedBody(mcpBody, DEFAULT_MAX_BODY_BYTES + delta, unit), headers);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
    }
    const over = await post('/mcp', paddedBody(mcpBody, DEFAULT_MAX_BODY_BYTES + 1, unit), headers);
    expect(over.status).toBe(413);
  });
});

describe('hostile input (fast-check)', () => {
  it('answers any A2A JSON-RPC body with a JSON-RPC answer, never a server error', async () => {
    const body = fc.oneof(
      fc.string(),
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc
        .record({
          jsonrpc: fc.constantFrom('2.0', '1.0'),
          id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
          method: fc.constantFrom('SendMessage', 'GetTask', 'CancelTask', 'SubscribeToTask', 'ListTasks', 'Nope'),
          params: fc.jsonValue(),
        })
        .map((value) => JSON.stringify(value)),
    );
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const response = await post(agentPath, text, { 'a2a-version': '1.0' });
        expect(response.status).toBeLessThan(500);
        const answer = (await response.json()) as { jsonrpc?: string };
        expect(answer.jsonrpc).toBe('2.0');
      }),
      { numRuns: 150 },
    );
  });

  it('answers any MCP tool arguments with a tool result, never a server error', async () => {
    const tools = ['list_teams', 'create_team', 'send_request', 'get_job', 'respond', 'cancel_job', 'list_inbox'];
    const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...tools),
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }),
        async (name, args) => {
          const body = JSON.stringify({
            jsonrpc: '2.0',
            id: 7,
            method: 'tools/call',
            params: { name, arguments: args },
          });
          const response = await post('/mcp', body, headers);
          expect(response.status).toBe(200);
          const answer = (await response.json()) as { result?: { content: unknown[] } };
          expect(answer.result?.content.length).toBe(1);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('routes any path under /a2a/ to 401, 404 or 405 without a server error', async () => {
    const segment = fc.string({ minLength: 1, maxLength: 20 }).map((s) => encodeURIComponent(s));
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.boolean(), async (segments, withToken) => {
        const response = await stack.app.server.yoga.fetch(`http://localhost/a2a/${segments.join('/')}`, {
          headers: withToken ? auth : {},
        });
        await response.body?.cancel();
        expect(response.status).toBeLessThan(500);
        if (!withToken && segments.length <= 3) expect([401, 404]).toContain(response.status);
      }),
      { numRuns: 150 },
    );
  });
});
