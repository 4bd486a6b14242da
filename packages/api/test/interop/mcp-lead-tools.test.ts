import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask, type CollabStack, NO_DATA, type PairTeam, pairPerFile, tokenFor } from '../collaboration/collab-stack.js';
import { callTool, connectMcp, refusalCode } from './mcp-clients.js';

let stack: CollabStack;
let baseUrl: string;
pairPerFile((fixture) => {
  ({ stack, url: baseUrl } = fixture);
});

const LEAD_TOOLS = ['team_spawn', 'team_retire', 'team_close', 'team_interrupt'];

describe("MCP lists the lead's tools to the team's lead only", () => {
  let led: PairTeam;
  const jobs: string[] = [];

  beforeAll(async () => {
    const created = await stack.gql(
      `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id name } } } }`,
      {
        input: {
          clientRequestId: 'mcp-lead-team',
          name: 'Led',
          goal: 'Work together',
          members: [
            { name: 'Lea', agentId: 'researcher', lead: true },
            { name: 'Max', agentId: 'writer' },
          ],
        },
      },
    );
    led = ((created.data ?? NO_DATA).createTeam as { team: PairTeam }).team;
  });
  afterAll(async () => {
    for (const job of jobs) await stack.cancel(job);
  });

  /** A member-run MCP client of a turn of `memberId` that stays open. */
  async function clientOf(memberId: string) {
    const job = await ask(stack, led.id, memberId, '!sleep 60000');
    jobs.push(job);
    await stack.waitFor(job, ['RUNNING']);
    return connectMcp(baseUrl, await tokenFor(stack, job));
  }

  it('lists them to the lead, as the openai runtime offers them', async () => {
    const lead = await clientOf(led.members[0]?.id as string);
    try {
      const names = (await lead.listTools()).tools.map((tool) => tool.name);
      for (const name of LEAD_TOOLS) expect(names).toContain(name);
    } finally {
      await lead.close();
    }
  });

  it('leaves them out for another member, who still gets NOT_LEAD calling one', async () => {
    const peer = await clientOf(led.members[1]?.id as string);
    try {
      const names = (await peer.listTools()).tools.map((tool) => tool.name);
      for (const name of LEAD_TOOLS) expect(names).not.toContain(name);
      expect(names).toContain('wait_for_change');
      expect(refusalCode((await callTool(peer, 'team_close', {})).json)).toBe('NOT_LEAD');
    } finally {
      await peer.close();
    }
  });
});
