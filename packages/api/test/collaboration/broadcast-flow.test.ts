import { describe, expect, it } from 'vitest';
import { ask, type CollabStack, eventually, NO_DATA, stackPerFile } from './collab-stack.js';

let stack: CollabStack;
stackPerFile((built) => {
  stack = built;
});

const JOBS = `query($id: ID!) { team(id: $id) { jobs(first: 100) { edges { node {
  id kind status text rootId member { name } result { text } } } } } }`;

interface JobRow {
  id: string;
  kind: string;
  status: string;
  text: string;
  rootId: string;
  member: { name: string };
  result: { text: string } | null;
}

async function teamWithRoles(): Promise<{ id: string; members: { id: string; name: string }[] }> {
  const answer = await stack.gql(
    `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id name } } } }`,
    {
      input: {
        clientRequestId: `broadcast-${Date.now()}-${Math.random()}`,
        name: 'Broadcast',
        goal: 'Ask everyone',
        members: [
          { name: 'Lead', agentId: 'researcher', role: 'coordinator', lead: true },
          { name: 'Ada', agentId: 'writer', role: 'writer' },
          { name: 'Bob', agentId: 'reviewer' },
        ],
      },
    },
  );
  const team = (
    (answer.data ?? NO_DATA).createTeam as { team: { id: string; members: { id: string; name: string }[] } }
  ).team;
  await eventually(async () => {
    const { data } = await stack.gql('query($id: ID!) { team(id: $id) { status } }', { id: team.id });
    return ((data ?? NO_DATA).team as { status: string }).status === 'READY' ? true : undefined;
  }, 'team READY');
  return team;
}

async function jobsOf(teamId: string): Promise<JobRow[]> {
  const { data } = await stack.gql(JOBS, { id: teamId });
  return ((data ?? NO_DATA).team as { jobs: { edges: { node: JobRow }[] } }).jobs.edges.map((edge) => edge.node);
}

describe('team_broadcast through the real server and the scripted runtime', () => {
  it('asks every other member in parallel and returns ONE receipt turn with a section per member', async () => {
    const team = await teamWithRoles();
    const lead = team.members[0] as { id: string };
    const args = JSON.stringify({ text: '!reply all good', request_id: 'b1' });
    const root = await ask(stack, team.id, lead.id, `!tool team_broadcast ${args}\n!tool team_broadcast ${args}`);
    const jobs = await eventually(async () => {
      const all = await jobsOf(team.id);
      const receipt = all.find((job) => job.kind === 'BROADCAST_RECEIPT');
      return receipt?.status === 'COMPLETED' ? all : undefined;
    }, 'the broadcast receipt completed');
    const requests = jobs.filter((job) => job.kind === 'REQUEST' && job.id !== root);
    // The retry with the same request_id sent nothing more; the requests joined the lead's chain.
    expect(requests.map((job) => [job.member.name, job.status, job.rootId])).toEqual([
      ['Ada', 'COMPLETED', root],
      ['Bob', 'COMPLETED', root],
    ]);
    const rootJob = jobs.find((job) => job.id === root);
    const ids = requests.map((job) => job.id);
    expect(rootJob?.result?.text).toBe(`${JSON.stringify({ ids })}\n${JSON.stringify({ ids })}`);
    expect(jobs.filter((job) => job.kind === 'RECEIPT')).toEqual([]);
    const receipts = jobs.filter((job) => job.kind === 'BROADCAST_RECEIPT');
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({
      member: { name: 'Lead' },
      text: '### Ada (writer)\nstatus: COMPLETED\nall good\n\n### Bob (no role)\nstatus: COMPLETED\nall good',
      result: { text: 'broadcast: ### Ada (writer) | ### Bob (no role)' },
    });
  });

  it('waits for the slowest member and reports a failed one in its section', async () => {
    const team = await teamWithRoles();
    const lead = team.members[0] as { id: string };
    const args = JSON.stringify({ text: '!sleep 300\n!fail no data', request_id: 'b2' });
    await ask(stack, team.id, lead.id, `!tool team_broadcast ${args}`);
    const receipt = await eventually(async () => {
      const found = (await jobsOf(team.id)).find((job) => job.kind === 'BROADCAST_RECEIPT');
      return found?.status === 'COMPLETED' ? found : undefined;
    }, 'the broadcast receipt completed');
    expect(receipt.text).toContain('### Ada (writer)\nstatus: FAILED\nno data');
    expect(receipt.text).toContain('### Bob (no role)\nstatus: FAILED\nno data');
  });
});
