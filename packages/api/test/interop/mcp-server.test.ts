import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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
import { callTool, connectMcp, postMcp, refusalCode } from './mcp-clients.js';

let stack: CollabStack;
let baseUrl: string;
let team: PairTeam;

pairPerFile((fixture) => {
  ({ stack, team, url: baseUrl } = fixture);
});

const MEMBER_TOOLS = [
  'send_member',
  'team_message',
  'team_broadcast',
  'read_team_context',
  'read_team_history',
  'search_team_results',
  'read_team_result',
  'task_create',
  'task_list',
  'task_claim',
  'task_update',
  'task_complete',
  'task_release',
  'task_cancel',
  // Team lifecycle (the lead's only: listed to the lead alone, NOT_LEAD for others) and the durable wait.
  'team_spawn',
  'team_retire',
  'team_close',
  'team_interrupt',
  'wait_for_change',
];
const LEAD_TOOLS = ['team_spawn', 'team_retire', 'team_close', 'team_interrupt'];
const PEER_TOOLS = MEMBER_TOOLS.filter((name) => !LEAD_TOOLS.includes(name));
const OWNER_TOOLS = ['list_teams', 'create_team', 'send_request', 'get_job', 'respond', 'cancel_job', 'list_inbox'];

describe('MCP with a member-run token', () => {
  let client: Client;
  let jobId: string;

  beforeAll(async () => {
    // A turn that stays open, so its member-run token keeps working.
    jobId = await ask(stack, team.id, team.members[0].id, '!sleep 60000');
    await stack.waitFor(jobId, ['RUNNING']);
    client = await connectMcp(baseUrl, await tokenFor(stack, jobId));
  });
  afterAll(async () => {
    await client.close();
    await stack.gql('mutation($id: ID!) { cancelJob(input: { jobId: $id }) { alreadyFinished } }', { id: jobId });
  });

  it("lists exactly the member's tools, each with a description and an object schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(PEER_TOOLS);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(20);
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    }
    const send = tools.find((tool) => tool.name === 'send_member');
    expect(send?.inputSchema.required).toEqual(['text', 'request_id']);
  });

  it('answers read_team_context with the same JSON as invokeTeamTool', async () => {
    const viaMcp = await callTool(client, 'read_team_context', {});
    const viaGraphql = await stack.tool(await tokenFor(stack, jobId), 'read_team_context', {});
    expect(viaMcp.isError).toBe(false);
    expect(viaMcp.json).toEqual(viaGraphql.value);
    expect(viaMcp.json).toMatchObject({ team_id: team.id, members: [{ name: 'Ada' }, { name: 'Bob' }] });
  });

  it('hands work to a peer with send_member, idempotently by request_id', async () => {
    const args = { member: 'Bob', text: 'Check the numbers', request_id: 'mcp-handoff-1' };
    const first = await callTool(client, 'send_member', args);
    const again = await callTool(client, 'send_member', args);
    expect(first.isError).toBe(false);
    expect(first.json).toMatchObject({ id: expect.any(String), status: expect.any(String) });
    expect((again.json as { id: string }).id).toBe((first.json as { id: string }).id);
    const handed = await stack.waitFor((first.json as { id: string }).id, ['COMPLETED']);
    expect(handed.result).toEqual({ text: 'Bob: Check the numbers' });
  });

  it('returns refusals as isError results with the code and message', async () => {
    const self = await callTool(client, 'send_member', { member: 'Ada', text: 'Me?', request_id: 'mcp-self' });
    expect(self.isError).toBe(true);
    expect(self.json).toEqual({ error: { code: 'SELF_REQUEST', message: expect.any(String) } });
    const noKey = await callTool(client, 'send_member', { member: 'Bob', text: 'No key' });
    expect(refusalCode(noKey.json)).toBe('INVALID_INPUT');
    const unknownArg = await callTool(client, 'read_team_context', { verbose: true });
    expect(refusalCode(unknownArg.json)).toBe('INVALID_INPUT');
    const unknownTool = await callTool(client, 'list_teams', {});
    expect(unknownTool.isError).toBe(true);
    expect(refusalCode(unknownTool.json)).toBe('INVALID_INPUT');
  });
});

describe('MCP with an owner token', () => {
  let alice: Client;
  let bob: Client;

  beforeAll(async () => {
    alice = await connectMcp(baseUrl, OWNER_TOKENS.alice);
    bob = await connectMcp(baseUrl, OWNER_TOKENS.bob);
  });
  afterAll(async () => {
    await alice.close();
    await bob.close();
  });

  it("lists the person's tools with the catalog's agents as create_team's choices", async () => {
    const { tools } = await alice.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(OWNER_TOOLS);
    const create = tools.find((tool) => tool.name === 'create_team');
    const members = create?.inputSchema.properties?.members as {
      items: { properties: { agent_id: { enum: string[] } } };
    };
    expect(members.items.properties.agent_id.enum).toEqual(['researcher', 'reviewer', 'writer']);
  });

  it('creates a team, sends a request and reads the job as a GraphQL client would', async () => {
    const created = await callTool(alice, 'create_team', {
      client_request_id: 'mcp-team-1',
      name: 'MCP team',
      goal: 'Try the MCP tools',
      members: [
        { name: 'Ann', agent_id: 'researcher' },
        { name: 'Ben', agent_id: 'writer' },
      ],
    });
    expect(created.isError).toBe(false);
    const mcpTeam = (created.json as { team: { id: string; members: { id: string; name: string }[] } }).team;
    expect(mcpTeam.members.map((m) => m.name)).toEqual(['Ann', 'Ben']);
    const sent = await callTool(alice, 'send_request', {
      team_id: mcpTeam.id,
      member_ids: [mcpTeam.members[1]?.id],
      text: 'Write one line',
      client_request_id: 'mcp-req-1',
    });
    const [job] = (sent.json as { jobs: { id: string; status: string }[] }).jobs;
    if (!job) throw new Error('no job');
    await stack.waitFor(job.id, ['COMPLETED']);
    const read = await callTool(alice, 'get_job', { job_id: job.id });
    const graphql = await stack.gql(
      'query($id: ID!) { job(id: $id) { id status result { available text truncated } } }',
      {
        id: job.id,
      },
    );
    expect(read.json).toMatchObject((graphql.data ?? NO_DATA).job as object);
    expect(read.json).toMatchObject({ status: 'COMPLETED', result: { text: 'Ben: Write one line' } });
    const listed = await callTool(alice, 'list_teams', { first: 50 });
    const ids = (listed.json as { edges: { node: { id: string } }[] }).edges.map((edge) => edge.node.id);
    expect(ids).toContain(mcpTeam.id);
  });

  it('answers a waiting job through list_inbox and respond, and cancels with cancel_job', async () => {
    const waiting = await ask(stack, team.id, team.members[1].id, '!ask Which region?');
    await stack.waitFor(waiting, ['WAITING_INPUT']);
    const inbox = await callTool(alice, 'list_inbox', {});
    const entry = (inbox.json as { edges: { node: { id: string; input: { question: string } } }[] }).edges.find(
      (edge) => edge.node.id === waiting,
    );
    expect(entry?.node.input.question).toBe('Which region?');
    const answered = await callTool(alice, 'respond', {
      job_id: waiting,
      response: 'EU',
      client_request_id: 'mcp-answer-1',
    });
    expect(answered.isError).toBe(false);
    expect((await stack.waitFor(waiting, ['COMPLETED'])).result).toEqual({ text: 'answered: EU' });

    const long = await ask(stack, team.id, team.members[1].id, '!sleep 60000');
    const cancelled = await callTool(alice, 'cancel_job', { job_id: long });
    expect(cancelled.json).toMatchObject({ alreadyFinished: false, job: { id: long } });
    await stack.waitFor(long, ['CANCELLED']);
  });

  it("refuses with the GraphQL API's codes, and never shows another owner's jobs", async () => {
    const job = await ask(stack, team.id, team.members[1].id, 'Mine');
    const foreign = await callTool(bob, 'get_job', { job_id: job });
    expect(foreign).toEqual({ isError: true, json: { error: { code: 'NOT_FOUND', message: expect.any(String) } } });
    const tooFew = await callTool(alice, 'create_team', {
      client_request_id: 'mcp-team-small',
      name: 'Small',
      goal: 'Too small',
      members: [{ name: 'Solo', agent_id: 'writer' }],
    });
    expect(refusalCode(tooFew.json)).toBe('MEMBER_COUNT');
    const notWaiting = await callTool(alice, 'respond', { job_id: job, response: 'x', client_request_id: 'mcp-nw' });
    expect(refusalCode(notWaiting.json)).toBe('NOT_WAITING_INPUT');
    const wrongType = await callTool(alice, 'send_request', {
      team_id: team.id,
      member_ids: [team.members[1].id],
      text: { not: 'text' },
      client_request_id: 'mcp-bad',
    });
    expect(wrongType.isError).toBe(true);
    expect(refusalCode(wrongType.json)).toBe('INVALID_INPUT');
    const extra = await callTool(alice, 'get_job', { job_id: job, verbose: true });
    expect(refusalCode(extra.json)).toBe('INVALID_INPUT');
  });
});

describe('MCP transport rules', () => {
  it('answers 401 with a Bearer challenge without a token or with an unknown one', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer nope' },
      { authorization: 'Bearer atmr_unknown' },
    ];
    for (const headers of attempts) {
      const answer = await postMcp(baseUrl, initialize, headers);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    }
    const error = await connectMcp(baseUrl, null).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
  });

  it('negotiates 2025-11-25 with the current SDK client and 2025-06-18 with an older client', async () => {
    const client = await connectMcp(baseUrl, OWNER_TOKENS.alice);
    expect((client.transport as { protocolVersion?: string } | undefined)?.protocolVersion).toBe('2025-11-25');
    await client.close();
    const auth = { authorization: `Bearer ${OWNER_TOKENS.alice}` };
    const older = await postMcp(
      baseUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      },
      auth,
    );
    expect(older.status).toBe(200);
    expect(older.json).toMatchObject({ result: { protocolVersion: '2025-06-18', capabilities: { tools: {} } } });
    // Stateless: the next request stands alone, carrying only the negotiated version.
    const listed = await postMcp(
      baseUrl,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      { ...auth, 'mcp-protocol-version': '2025-06-18' },
    );
    expect((listed.json as { result: { tools: unknown[] } }).result.tools).toHaveLength(OWNER_TOOLS.length);
    const unsupported = await postMcp(
      baseUrl,
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} },
      { ...auth, 'mcp-protocol-version': '1999-01-01' },
    );
    expect(unsupported.status).toBe(400);
  });

  it('has no sessions: GET and DELETE are 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(new URL('/mcp', baseUrl), {
        method,
        headers: { authorization: `Bearer ${OWNER_TOKENS.alice}`, accept: 'text/event-stream' },
      });
      expect(response.status).toBe(405);
      await response.body?.cancel();
    }
  });
});
