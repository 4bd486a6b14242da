import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, sendRequest, type TeamFixture } from '../graphql/fixtures.js';
import { createGraphqlStack, type GraphqlStack } from '../graphql/graphql-stack.js';
import { collect, wsClient } from '../support/ws-client.js';

let stack: GraphqlStack;
let baseUrl: string;
const clients: Client[] = [];
beforeAll(async () => {
  stack = await createGraphqlStack();
  baseUrl = (await stack.server.listen(0, '127.0.0.1')).url;
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await stack.close();
});

const LEAD_TEAM = {
  members: [
    { name: 'Ada', agentId: 'researcher', role: 'Leads the review', lead: true },
    { name: 'Bob', agentId: 'writer', role: 'Writes' },
  ],
};

/** Runs one scripted turn of `memberId` and answers its text (each directive's answer line). */
async function turn(team: TeamFixture, memberId: string, script: string): Promise<string> {
  const [jobId = ''] = await sendRequest(stack, team.id, [memberId], script);
  const job = await stack.waitForJob(jobId, ['COMPLETED', 'FAILED', 'CANCELLED']);
  return String((job.result as { text: string } | null)?.text ?? job.error);
}

const tool = (name: string, args: Record<string, unknown>) => `!tool ${name} ${JSON.stringify(args)}`;

describe('the lead’s tools through the scripted runtime', () => {
  it('refuses every lead tool to a member who is not the lead with NOT_LEAD, changing nothing', async () => {
    const team = await createTeam(stack, undefined, LEAD_TEAM);
    const bob = String(team.members[1]?.id);
    const script = [
      tool('team_spawn', { name: 'Cy', agent: 'researcher', request_id: 'r1' }),
      tool('team_retire', { member: 'Ada' }),
      tool('team_interrupt', { member: 'Ada', reason: 'stop' }),
      tool('team_close', {}),
    ].join('\n');
    const lines = (await turn(team, bob, script)).split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual(Array.from({ length: 4 }, () => ({ error: { code: 'NOT_LEAD' } })));
    const { data } = await stack.gql('query($id: ID!) { team(id: $id) { status members { name } } }', { id: team.id });
    expect(data?.team).toEqual({ status: 'READY', members: [{ name: 'Ada' }, { name: 'Bob' }] });
  });

  it('checks the arguments’ types before the role: a malformed call is INVALID_INPUT for anyone', async () => {
    const team = await createTeam(stack, undefined, LEAD_TEAM);
    const bob = String(team.members[1]?.id);
    const script = [
      tool('team_spawn', { name: 7, agent: 'writer', request_id: 'r1' }),
      tool('team_retire', {}),
      tool('team_interrupt', { member: 'Ada', reason: ['stop'] }),
      tool('team_close', { reason: 42 }),
    ].join('\n');
    const lines = (await turn(team, bob, script)).split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual(Array.from({ length: 4 }, () => ({ error: { code: 'INVALID_INPUT' } })));
  });

  it('lets the lead spawn, retire and close, and teamEvents replays MemberSpawned, MemberRetired and TeamClosed', async () => {
    const team = await createTeam(stack, undefined, LEAD_TEAM);
    const ada = String(team.members[0]?.id);
    const spawnLine = await turn(
      team,
      ada,
      tool('team_spawn', { name: 'Cy', agent: 'writer', role: 'Checks', request_id: 'r1' }),
    );
    const spawnedCy = JSON.parse(spawnLine) as { member_id: string; name: string; status: string };
    expect(spawnedCy).toMatchObject({ name: 'Cy', status: 'IDLE' });
    const retireLine = JSON.parse(await turn(team, ada, tool('team_retire', { member: 'Cy' })));
    expect(retireLine).toEqual({ member_id: spawnedCy.member_id, status: 'RETIRED', cancelled_jobs: [] });
    expect(JSON.parse(await turn(team, ada, tool('team_retire', { member: 'Ada' })))).toEqual({
      error: { code: 'INVALID_INPUT' },
    });
    expect(JSON.parse(await turn(team, ada, tool('team_close', { reason: 'done' })))).toEqual({
      team_id: team.id,
      status: 'CLOSED',
    });
    const client = wsClient(baseUrl);
    clients.push(client);
    const query = `subscription($teamId: ID!) { teamEvents(teamId: $teamId, afterSeq: 0) {
      __typename seq ... on MemberSpawned { member { name status } } ... on MemberRetired { member { name } } } }`;
    const events = await collect(
      client,
      { query, variables: { teamId: team.id } },
      (data) => data.teamEvents as { __typename: string; seq: number; member?: { name: string } },
      (items) => items.some((e) => e.__typename === 'TeamClosed'),
    );
    const lifecycle = events.filter((e) => ['MemberSpawned', 'MemberRetired', 'TeamClosed'].includes(e.__typename));
    expect(lifecycle.map((e) => [e.__typename, e.member?.name ?? null])).toEqual([
      ['MemberSpawned', 'Cy'],
      ['MemberRetired', 'Cy'],
      ['TeamClosed', null],
    ]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it('lets the lead interrupt a teammate’s running turn; an idle teammate answers job_id null', async () => {
    const team = await createTeam(stack, undefined, LEAD_TEAM);
    const [ada, bob] = [String(team.members[0]?.id), String(team.members[1]?.id)];
    const [busy = ''] = await sendRequest(stack, team.id, [bob], '!sleep 60000');
    await stack.waitForJob(busy, ['RUNNING']);
    const first = JSON.parse(await turn(team, ada, tool('team_interrupt', { member: 'Bob', reason: 'new plan' })));
    expect(first).toEqual({ job_id: busy });
    expect(await stack.waitForJob(busy, ['CANCELLED'])).toMatchObject({ error: 'new plan' });
    const second = JSON.parse(await turn(team, ada, tool('team_interrupt', { member: 'Bob', reason: 'again' })));
    expect(second).toEqual({ job_id: null });
  });
});
