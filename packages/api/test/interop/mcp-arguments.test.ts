import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ask,
  type CollabStack,
  NO_DATA,
  OWNER_TOKENS,
  type PairTeam,
  pairPerFile,
  tokenFor,
} from '../collaboration/collab-stack.js';
import { callTool, connectMcp, postMcp } from './mcp-clients.js';

/**
 * Every MCP tool call is checked against the tool's declared `inputSchema` before it runs: a value
 * of the wrong type or an unknown argument name is INVALID_INPUT naming the argument, never a
 * NOT_FOUND from a coerced id or a call that silently went through.
 */
let stack: CollabStack;
let baseUrl: string;
let team: PairTeam;
pairPerFile((fixture) => {
  ({ stack, team, url: baseUrl } = fixture);
});

/** Arguments with an own `__proto__` key, as a JSON body carries it (an object literal cannot). */
const protoArgs = (): Record<string, unknown> => JSON.parse('{"__proto__":1}') as Record<string, unknown>;

/** The refusal's code and message, asserting it is one. */
async function refusal(client: Client, name: string, args: Record<string, unknown>) {
  const answer = await callTool(client, name, args);
  expect(answer.isError).toBe(true);
  const { error } = answer.json as { error: { code: string; message: string } };
  expect(Object.keys(error).sort()).toEqual(['code', 'message']);
  return error;
}

async function jobCount(): Promise<number> {
  const answer = await stack.gql('query($id: ID!) { team(id: $id) { jobs { totalCount } } }', { id: team.id });
  return ((answer.data ?? NO_DATA).team as { jobs: { totalCount: number } }).jobs.totalCount;
}

describe('MCP owner tools check argument types', () => {
  let alice: Client;
  beforeAll(async () => {
    alice = await connectMcp(baseUrl, OWNER_TOKENS.alice);
  });
  afterAll(async () => alice.close());

  it('refuses a number where an id string is declared with INVALID_INPUT naming it, not NOT_FOUND', async () => {
    const job = await ask(stack, team.id, team.members[1].id, 'Typed');
    expect(await refusal(alice, 'get_job', { job_id: 5 })).toEqual({
      code: 'INVALID_INPUT',
      message: 'get_job: "job_id" must be a string, not 5.',
    });
    expect((await refusal(alice, 'cancel_job', { job_id: 123 })).message).toContain('"job_id"');
    expect(await refusal(alice, 'get_job', { job_id: '' })).toMatchObject({ code: 'INVALID_INPUT' });
    expect(await refusal(alice, 'get_job', {})).toEqual({
      code: 'INVALID_INPUT',
      message: 'get_job requires "job_id".',
    });
    // The same tools with a string still answer as before.
    expect(await callTool(alice, 'get_job', { job_id: job })).toMatchObject({ isError: false, json: { id: job } });
    const missing = await refusal(alice, 'get_job', { job_id: 'job_absent' });
    expect(missing.code).toBe('NOT_FOUND');
  });

  it('refuses send_request with a wrong team_id type or a string for member_ids, creating no job', async () => {
    const before = await jobCount();
    const base = { text: 'Typed request', member_ids: [team.members[1].id], team_id: team.id };
    const wrongTeam = await refusal(alice, 'send_request', { ...base, team_id: 123, client_request_id: 'args-1' });
    expect(wrongTeam).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('"team_id"') });
    const lone = await refusal(alice, 'send_request', {
      ...base,
      member_ids: team.members[1].id,
      client_request_id: 'args-2',
    });
    expect(lone).toEqual({
      code: 'INVALID_INPUT',
      message: 'send_request: "member_ids" must be a list, not a string.',
    });
    const item = await refusal(alice, 'send_request', { ...base, member_ids: [7], client_request_id: 'args-3' });
    expect(item.message).toContain('"member_ids[0]"');
    expect(await jobCount()).toBe(before);
    const sent = await callTool(alice, 'send_request', { ...base, client_request_id: 'args-4' });
    expect(sent.isError).toBe(false);
    expect(await jobCount()).toBe(before + 1);
  });

  it('checks integers, bounds and lengths where the schema declares them, and leaves counts to the API', async () => {
    expect((await refusal(alice, 'list_teams', { first: 1.5 })).message).toBe(
      'list_teams: "first" must be an integer, not 1.5.',
    );
    expect((await refusal(alice, 'list_teams', { first: '5' })).message).toContain('"first"');
    expect((await refusal(alice, 'list_inbox', { first: 101 })).message).toBe(
      'list_inbox: "first" must be at most 100.',
    );
    expect((await refusal(alice, 'list_teams', { after: false })).message).toContain('"after"');
    const answer = { job_id: 'job_absent', response: 'x' };
    const key = await refusal(alice, 'respond', { ...answer, client_request_id: 'k'.repeat(129) });
    expect(key.message).toBe('respond: "client_request_id" must be at most 128 characters.');
    // Counted in code points, as the API counts them: 128 emoji pass the check and reach respond.
    const emoji = await refusal(alice, 'respond', { ...answer, client_request_id: '😀'.repeat(128) });
    expect(emoji.code).toBe('NOT_FOUND');
    expect((await callTool(alice, 'list_teams', { first: 1 })).isError).toBe(false);
    // How many members a team has is the API's rule, with its own code.
    const one = await refusal(alice, 'create_team', {
      client_request_id: 'args-small',
      name: 'Small',
      goal: 'Too small',
      members: [{ name: 'Solo', agent_id: 'writer' }],
    });
    expect(one.code).toBe('MEMBER_COUNT');
  });

  it('refuses built-in property names like any unknown argument, at the top and inside a member', async () => {
    for (const args of [{ constructor: 1 }, { toString: 1 }, { hasOwnProperty: 1 }, protoArgs(), { bogus: 1 }]) {
      const [name] = Object.keys(args);
      expect(await refusal(alice, 'list_teams', args)).toEqual({
        code: 'INVALID_INPUT',
        message: `list_teams does not take "${name}".`,
      });
    }
    const nested = await refusal(alice, 'create_team', {
      client_request_id: 'args-nested',
      name: 'Nested',
      goal: 'Unknown member keys',
      members: [
        { name: 'Ann', agent_id: 'writer', constructor: 'x' },
        { name: 'Ben', agent_id: 'writer' },
      ],
    });
    expect(nested.message).toBe('create_team does not take "members[0].constructor".');
  });
});

describe('MCP member tools check argument types', () => {
  let member: Client;
  let jobId: string;
  beforeAll(async () => {
    // A turn that stays open, so its member-run token keeps working.
    jobId = await ask(stack, team.id, team.members[0].id, '!sleep 60000');
    await stack.waitFor(jobId, ['RUNNING']);
    member = await connectMcp(baseUrl, await tokenFor(stack, jobId));
  });
  afterAll(async () => {
    await member.close();
    await stack.cancel(jobId);
  });

  it('refuses wrong types and built-in property names with INVALID_INPUT', async () => {
    const wrong: [string, Record<string, unknown>][] = [
      ['read_team_result', { job_id: 5 }],
      ['read_team_history', { limit: '5' }],
      ['send_member', { member: 'Bob', text: 5, request_id: 'args-m1' }],
      ['task_claim', { task_id: 'task_x', expected_revision: '1' }],
      ['read_team_context', { constructor: 1 }],
      ['read_team_context', { toString: 1 }],
      ['read_team_context', protoArgs()],
    ];
    for (const [name, args] of wrong) {
      expect(await refusal(member, name, args), `${name} ${JSON.stringify(args)}`).toMatchObject({
        code: 'INVALID_INPUT',
      });
    }
    const read = await callTool(member, 'read_team_history', { limit: 5 });
    expect(read.isError).toBe(false);
  });
});

describe('tools/call whose arguments are not an object', () => {
  it('answers -32602 (invalid params) in one short sentence, for an owner and without a tool run', async () => {
    const headers = { authorization: `Bearer ${OWNER_TOKENS.alice}`, 'mcp-protocol-version': '2025-11-25' };
    const cases: [unknown, string][] = [
      [[], 'an array'],
      [null, 'null'],
      ['x', 'a string'],
    ];
    for (const [sent, got] of cases) {
      const params = { name: 'list_teams', arguments: sent };
      const answer = await postMcp(baseUrl, { jsonrpc: '2.0', id: 7, method: 'tools/call', params }, headers);
      expect(answer.json).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32602, message: `MCP error -32602: tools/call "arguments" must be a JSON object, not ${got}.` },
      });
    }
    // Absent arguments are none: the call runs.
    const none = await postMcp(
      baseUrl,
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'list_teams' } },
      headers,
    );
    expect((none.json as { result: { isError?: boolean } }).result.isError).toBeUndefined();
  });
});
