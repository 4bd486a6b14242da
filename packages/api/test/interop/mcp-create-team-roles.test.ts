import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollabStack, NO_DATA, OWNER_TOKENS, pairPerFile } from '../collaboration/collab-stack.js';
import { callTool, connectMcp } from './mcp-clients.js';

/**
 * MCP `create_team` takes each member's `role` and `lead` as GraphQL's `createTeam` does, with
 * the same rules and the same refusals.
 */
let stack: CollabStack;
let baseUrl: string;
pairPerFile((fixture) => {
  ({ stack, url: baseUrl } = fixture);
});

interface MemberArg {
  readonly name: string;
  readonly agent_id: string;
  readonly role?: unknown;
  readonly lead?: unknown;
}

let counter = 0;
const teamArgs = (members: readonly MemberArg[]) => {
  counter += 1;
  return { client_request_id: `roles-${counter}`, name: `Roles ${counter}`, goal: 'Lead and roles', members };
};

/** The same team as GraphQL's `createTeam` input (camelCase), for comparing the refusals. */
const graphqlInput = (args: ReturnType<typeof teamArgs>) => ({
  clientRequestId: `gql-${args.client_request_id}`,
  name: args.name,
  goal: args.goal,
  members: args.members.map(({ agent_id, ...rest }) => ({ ...rest, agentId: agent_id })),
});

async function graphqlRefusal(args: ReturnType<typeof teamArgs>): Promise<{ code: unknown; message: string }> {
  const answer = await stack.gql('mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id } } }', {
    input: graphqlInput(args),
  });
  const [first] = answer.errors;
  if (first === undefined) throw new Error('createTeam was not refused');
  return { code: first.extensions?.code, message: first.message };
}

describe('MCP create_team with roles and a lead', () => {
  let alice: Client;
  beforeAll(async () => {
    alice = await connectMcp(baseUrl, OWNER_TOKENS.alice);
  });
  afterAll(async () => alice.close());

  it('lists role and lead in the member schema, which takes no other keys', async () => {
    const { tools } = await alice.listTools();
    const members = tools.find((tool) => tool.name === 'create_team')?.inputSchema.properties?.members as {
      items: { properties: Record<string, { type?: string }>; required: string[]; additionalProperties: boolean };
    };
    expect(members.items.properties.role?.type).toBe('string');
    expect(members.items.properties.lead?.type).toBe('boolean');
    expect(members.items.required).toEqual(['name', 'agent_id']);
    expect(members.items.additionalProperties).toBe(false);
  });

  it('creates the members with their role and lead, as GraphQL then reads them', async () => {
    const created = await callTool(
      alice,
      'create_team',
      teamArgs([
        { name: 'Lea', agent_id: 'researcher', role: 'Plans the work', lead: true },
        { name: 'Wes', agent_id: 'writer', role: 'Writes it up', lead: false },
        { name: 'Rex', agent_id: 'reviewer' },
      ]),
    );
    expect(created.isError).toBe(false);
    const team = (created.json as { team: { id: string; members: unknown[] } }).team;
    const expected = [
      { name: 'Lea', role: 'Plans the work', isLead: true },
      { name: 'Wes', role: 'Writes it up', isLead: false },
      { name: 'Rex', role: null, isLead: false },
    ];
    expect(team.members).toMatchObject(expected);
    const read = await stack.gql('query($id: ID!) { team(id: $id) { members { name role isLead } } }', { id: team.id });
    expect(((read.data ?? NO_DATA).team as { members: unknown[] }).members).toEqual(expected);
  });

  it('refuses two leads with LEAD_COUNT and a bad role with INVALID_INPUT, exactly as GraphQL does', async () => {
    const refused = [
      teamArgs([
        { name: 'One', agent_id: 'writer', lead: true },
        { name: 'Two', agent_id: 'writer', lead: true },
      ]),
      teamArgs([
        { name: 'Long', agent_id: 'writer', role: 'r'.repeat(201) },
        { name: 'Fine', agent_id: 'writer' },
      ]),
      teamArgs([
        { name: 'Fine', agent_id: 'writer' },
        { name: 'Lines', agent_id: 'writer', role: 'two\nlines' },
      ]),
      teamArgs([
        { name: 'Blank', agent_id: 'writer', role: '   ' },
        { name: 'Fine', agent_id: 'writer' },
      ]),
    ];
    const codes: unknown[] = [];
    for (const args of refused) {
      const viaMcp = await callTool(alice, 'create_team', args);
      expect(viaMcp.isError).toBe(true);
      const viaGraphql = await graphqlRefusal(args);
      expect((viaMcp.json as { error: unknown }).error).toEqual(viaGraphql);
      codes.push(viaGraphql.code);
    }
    expect(codes).toEqual(['LEAD_COUNT', 'INVALID_INPUT', 'INVALID_INPUT', 'INVALID_INPUT']);
    // 200 characters is within the limit.
    const longest = await callTool(
      alice,
      'create_team',
      teamArgs([
        { name: 'Max', agent_id: 'writer', role: 'r'.repeat(200) },
        { name: 'Min', agent_id: 'writer', role: 'r' },
      ]),
    );
    expect(longest.isError).toBe(false);
  });

  it('refuses a role or lead of the wrong type, and an unknown member key, before creating anything', async () => {
    const wrong: [MemberArg, string][] = [
      [
        { name: 'Ann', agent_id: 'writer', lead: 'true' },
        'create_team: "members[0].lead" must be a boolean, not a string.',
      ],
      [{ name: 'Ann', agent_id: 'writer', role: 5 }, 'create_team: "members[0].role" must be a string, not 5.'],
      [
        { name: 'Ann', agent_id: 'writer', isLead: true } as MemberArg,
        'create_team does not take "members[0].isLead".',
      ],
      [
        { name: 'Ann', agent_id: 'writer', agentId: 'writer' } as MemberArg,
        'create_team does not take "members[0].agentId".',
      ],
    ];
    const key = teamArgs([]).client_request_id;
    for (const [first, message] of wrong) {
      const answer = await callTool(alice, 'create_team', {
        ...teamArgs([first, { name: 'Ben', agent_id: 'writer' }]),
        client_request_id: key,
      });
      expect(answer).toEqual({ isError: true, json: { error: { code: 'INVALID_INPUT', message } } });
    }
    // Nothing was created under the key: the same key now creates a team of other content.
    const created = await callTool(alice, 'create_team', {
      ...teamArgs([
        { name: 'Ann', agent_id: 'writer', lead: true },
        { name: 'Ben', agent_id: 'writer' },
      ]),
      client_request_id: key,
    });
    expect(created.isError).toBe(false);
  });
});
