import { Limits, type TextLimit } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_TEAM, createTeam, expectData, SEND_REQUEST, teamInput } from './fixtures.js';
import { codes, createGraphqlStack, type GqlResponse, type GraphqlStack, TOKENS } from './graphql-stack.js';

let stack: GraphqlStack;
beforeAll(async () => {
  stack = await createGraphqlStack({ scheduler: false });
});
afterAll(async () => stack.close());

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * Texts at limit−1, limit and limit+1 of a length rule in one script: ASCII hits the character
 * limit; CJK (3 bytes) and emoji (4 bytes, one code point) hit the byte limit exactly.
 */
function sizes(limit: TextLimit): { script: string; below: string; at: string; above: string }[] {
  const cjkCount = Math.floor(limit.maxBytes / 3);
  const cjkAt = '中'.repeat(cjkCount) + 'a'.repeat(limit.maxBytes - cjkCount * 3);
  const emojiAt = '😀'.repeat(Math.floor(limit.maxBytes / 4));
  return [
    {
      script: 'ASCII',
      below: 'a'.repeat(limit.maxChars - 1),
      at: 'a'.repeat(limit.maxChars),
      above: 'a'.repeat(limit.maxChars + 1),
    },
    { script: 'CJK', below: cjkAt.slice(0, -1), at: cjkAt, above: `${cjkAt}a` },
    { script: 'emoji', below: emojiAt.slice(0, -2), at: emojiAt, above: `${emojiAt}😀` },
  ];
}

/** The length-limited inputs and how to send a value in each. */
const FIELDS: { field: string; limit: TextLimit; send: (value: string) => Promise<GqlResponse> }[] = [
  { field: 'name', limit: Limits.teamName, send: (name) => stack.gql(CREATE_TEAM, { input: teamInput({ name }) }) },
  { field: 'goal', limit: Limits.goal, send: (goal) => stack.gql(CREATE_TEAM, { input: teamInput({ goal }) }) },
  {
    field: 'member name',
    limit: Limits.memberName,
    send: (name) =>
      stack.gql(CREATE_TEAM, {
        input: teamInput({
          members: [
            { name, agentId: 'researcher' },
            { name: 'Bob', agentId: 'writer' },
          ],
        }),
      }),
  },
  {
    field: 'member role',
    limit: Limits.memberRole,
    send: (role) =>
      stack.gql(CREATE_TEAM, {
        input: teamInput({
          members: [
            { name: 'Ada', agentId: 'researcher', role },
            { name: 'Bob', agentId: 'writer' },
          ],
        }),
      }),
  },
  {
    field: 'text',
    limit: Limits.taskText,
    send: async (text) => {
      const team = await createTeam(stack, TOKENS.bob);
      return stack.gql(
        SEND_REQUEST,
        { input: { teamId: team.id, memberIds: [team.members[0]?.id], text, clientRequestId: 'limits' } },
        TOKENS.bob,
      );
    },
  },
];

type TeamWithJobs = { id: string; jobs: { edges: { node: { id: string } }[] } };

/**
 * Deletes whatever a successful send created, so the 20-team limit never interferes. The
 * scheduler is off, so requests stay QUEUED: cancelling them ends them at once.
 */
async function cleanUp(): Promise<void> {
  for (const token of [TOKENS.alice, TOKENS.bob]) {
    const data = expectData(
      await stack.gql(
        '{ viewer { teams(first: 100) { edges { node { id jobs(first: 100) { edges { node { id } } } } } } } }',
        {},
        token,
      ),
    );
    for (const { node } of (data.viewer as { teams: { edges: { node: TeamWithJobs }[] } }).teams.edges) {
      for (const job of node.jobs.edges) {
        expectData(
          await stack.gql(
            'mutation($id: ID!) { cancelJob(input: {jobId: $id}) { job { status } } }',
            { id: job.node.id },
            token,
          ),
        );
      }
      expectData(
        await stack.gql(
          'mutation($id: ID!) { deleteTeam(input: {teamId: $id}) { deletedTeamId } }',
          { id: node.id },
          token,
        ),
      );
    }
  }
}

describe.each(FIELDS)('the length rule of $field', ({ limit, send }) => {
  it.each(sizes(limit))(
    'accepts $script at limit−1 and at the limit, refuses limit+1 with both limits',
    async ({ below, at, above }) => {
      expect(utf8(at) === limit.maxBytes || [...at].length === limit.maxChars).toBe(true);
      for (const ok of [below, at]) {
        const response = await send(ok);
        expect(response.errors).toEqual([]);
        await cleanUp();
      }
      const refused = await send(above);
      expect(codes(refused)).toEqual(['INVALID_INPUT']);
      expect(refused.errors[0]?.extensions).toMatchObject({ maxChars: limit.maxChars, maxBytes: limit.maxBytes });
      expect(typeof refused.errors[0]?.extensions?.field).toBe('string');
      await cleanUp();
    },
  );

  it('refuses a lone surrogate with INVALID_INPUT naming the field', async () => {
    const refused = await send('ab\ud800cd');
    expect(codes(refused)).toEqual(['INVALID_INPUT']);
    expect(typeof refused.errors[0]?.extensions?.field).toBe('string');
    await cleanUp();
  });
});

describe('team creation rules', () => {
  it('returns the same team for a retried clientRequestId with the same content', async () => {
    const input = teamInput();
    const first = expectData(await stack.gql(CREATE_TEAM, { input }));
    const second = expectData(await stack.gql(CREATE_TEAM, { input }));
    expect(second).toEqual(first);
    const list = expectData(await stack.gql('{ viewer { teams { edges { node { id } } } } }'));
    expect((list.viewer as { teams: { edges: unknown[] } }).teams.edges).toHaveLength(1);
    await cleanUp();
  });

  it('answers IDEMPOTENCY_CONFLICT for a clientRequestId reused with other content', async () => {
    const input = teamInput();
    expectData(await stack.gql(CREATE_TEAM, { input }));
    expect(codes(await stack.gql(CREATE_TEAM, { input: { ...input, goal: 'Another goal' } }))).toEqual([
      'IDEMPOTENCY_CONFLICT',
    ]);
    await cleanUp();
  });

  it.each([1, 9])('answers MEMBER_COUNT for %i members', async (count) => {
    const members = Array.from({ length: count }, (_, i) => ({ name: `M${i}`, agentId: 'researcher' }));
    expect(codes(await stack.gql(CREATE_TEAM, { input: teamInput({ members }) }))).toEqual(['MEMBER_COUNT']);
  });

  it('accepts 2 and 8 members', async () => {
    for (const count of [2, 8]) {
      const members = Array.from({ length: count }, (_, i) => ({ name: `M${i}`, agentId: 'researcher' }));
      const data = expectData(await stack.gql(CREATE_TEAM, { input: teamInput({ members }) }));
      expect((data.createTeam as { team: { members: unknown[] } }).team.members).toHaveLength(count);
    }
    await cleanUp();
  });

  it('answers DUPLICATE_MEMBER_NAME for names equal after trimming', async () => {
    const members = [
      { name: 'Ada', agentId: 'researcher' },
      { name: '  Ada ', agentId: 'writer' },
    ];
    expect(codes(await stack.gql(CREATE_TEAM, { input: teamInput({ members }) }))).toEqual(['DUPLICATE_MEMBER_NAME']);
  });

  it('answers TEAM_LIMIT for the 21st team of an owner and not for another owner', async () => {
    for (let i = 0; i < Limits.teamsPerOwner; i++) await createTeam(stack);
    expect(codes(await stack.gql(CREATE_TEAM, { input: teamInput() }))).toEqual(['TEAM_LIMIT']);
    expect((await stack.gql(CREATE_TEAM, { input: teamInput() }, TOKENS.bob)).errors).toEqual([]);
    await cleanUp();
  });

  it('keeps roles and the lead: Member.role, Member.isLead and Team.lead (null without a lead)', async () => {
    const query = `mutation($input: CreateTeamInput!) {
      createTeam(input: $input) { team { members { name role isLead } lead { name role } } }
    }`;
    const members = [
      { name: 'Ada', agentId: 'researcher', role: ' Plans the work ', lead: true },
      { name: 'Bob', agentId: 'writer', role: null },
      { name: 'Cy', agentId: 'writer', lead: false },
    ];
    const led = expectData(await stack.gql(query, { input: teamInput({ members }) }));
    expect(led.createTeam).toEqual({
      team: {
        members: [
          { name: 'Ada', role: 'Plans the work', isLead: true },
          { name: 'Bob', role: null, isLead: false },
          { name: 'Cy', role: null, isLead: false },
        ],
        lead: { name: 'Ada', role: 'Plans the work' },
      },
    });
    const unled = expectData(await stack.gql(query, { input: teamInput() }));
    expect((unled.createTeam as { team: { lead: unknown } }).team.lead).toBeNull();
    await cleanUp();
  });

  it('answers LEAD_COUNT naming the second lead, and INVALID_INPUT for a blank role', async () => {
    const leads = [
      { name: 'Ada', agentId: 'researcher', lead: true },
      { name: 'Bob', agentId: 'writer', lead: true },
    ];
    const twoLeads = await stack.gql(CREATE_TEAM, { input: teamInput({ members: leads }) });
    expect(codes(twoLeads)).toEqual(['LEAD_COUNT']);
    expect(twoLeads.errors[0]?.extensions?.field).toBe('members[1].lead');
    const blank = [
      { name: 'Ada', agentId: 'researcher', role: '   ' },
      { name: 'Bob', agentId: 'writer' },
    ];
    const refused = await stack.gql(CREATE_TEAM, { input: teamInput({ members: blank }) });
    expect(codes(refused)).toEqual(['INVALID_INPUT']);
    expect(refused.errors[0]?.extensions?.field).toBe('members[0].role');
    const list = expectData(await stack.gql('{ viewer { teams { edges { node { id } } } } }'));
    expect((list.viewer as { teams: { edges: unknown[] } }).teams.edges).toHaveLength(0);
  });

  it('answers NOT_FOUND for an agent that is not in the catalog', async () => {
    const members = [
      { name: 'Ada', agentId: 'researcher' },
      { name: 'Eve', agentId: 'no-such-agent' },
    ];
    const response = await stack.gql(CREATE_TEAM, { input: teamInput({ members }) });
    expect(codes(response)).toEqual(['NOT_FOUND']);
    expect(response.errors[0]?.extensions?.field).toBe('members[1].agentId');
  });
});
