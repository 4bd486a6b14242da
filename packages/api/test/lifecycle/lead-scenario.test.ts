import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, expectData, sendRequest } from '../graphql/fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack } from '../graphql/graphql-stack.js';
import { eventually } from '../support/test-app.js';

let stack: GraphqlStack;
beforeAll(async () => {
  stack = await createGraphqlStack();
});
afterAll(async () => stack.close());

const JOBS = `query($id: ID!) { team(id: $id) { status members { name status role }
  jobs(first: 50) { edges { node { id kind status error text member { name } } } } } }`;
type JobView = {
  id: string;
  kind: string;
  status: string;
  error: string | null;
  text: string;
  member: { name: string };
};
type TeamView = {
  status: string;
  members: { name: string; status: string; role: string | null }[];
  jobs: { edges: { node: JobView }[] };
};

const tool = (name: string, args: Record<string, unknown>) => `!tool ${name} ${JSON.stringify(args)}`;

describe('a lead coordinating three teammates (scripted runtime)', () => {
  it('spawns two, hands work to all three, waits for their progress, interrupts and retires one, and closes the team', async () => {
    const team = await createTeam(stack, undefined, {
      members: [
        { name: 'Lead', agentId: 'researcher', role: 'Coordinates', lead: true },
        { name: 'T1', agentId: 'researcher', role: 'Researches' },
      ],
    });
    const lead = String(team.members[0]?.id);
    const script = [
      tool('team_spawn', { name: 'T2', agent: 'writer', role: 'Writes', request_id: 's2' }),
      tool('team_spawn', { name: 'T3', agent: 'reviewer', role: 'Reviews', context: 'fork', request_id: 's3' }),
      '!handoff T1 research the topic',
      '!handoff T2 write the draft',
      '!handoff T3 !sleep 60000',
      '!wait 60000',
      tool('team_interrupt', { member: 'T3', reason: 'too slow' }),
      tool('team_retire', { member: 'T3' }),
      tool('team_close', { reason: 'done' }),
    ].join('\n');
    const [leadJob = ''] = await sendRequest(stack, team.id, [lead], script);
    const done = await stack.waitForJob(leadJob, ['COMPLETED', 'FAILED']);
    const lines = String((done.result as { text: string }).text).split('\n');
    const [spawn2, spawn3] = [JSON.parse(String(lines[0])), JSON.parse(String(lines[1]))];
    expect(spawn2).toMatchObject({ name: 'T2', status: 'IDLE' });
    expect(spawn3).toMatchObject({ name: 'T3', status: 'IDLE' });
    expect(lines.slice(2, 5)).toEqual(['handed off to T1', 'handed off to T2', 'handed off to T3']);
    const woke = JSON.parse(String(lines[5])) as { timed_out: boolean; changes: unknown[] };
    expect(woke.timed_out).toBe(false);
    expect(woke.changes.length).toBeGreaterThan(0);
    const interrupted = JSON.parse(String(lines[6])) as { job_id: string };
    expect(JSON.parse(String(lines[7]))).toMatchObject({ member_id: spawn3.member_id, status: 'RETIRED' });
    expect(JSON.parse(String(lines[8]))).toEqual({ team_id: team.id, status: 'CLOSED' });

    // Everything winds down: T3's turn ends with the lead's reason, the rest finishes or is cancelled.
    const view = await eventually(
      async () => {
        const data = expectData(await stack.gql(JOBS, { id: team.id })).team as TeamView;
        const open = data.jobs.edges.filter((e) => !['COMPLETED', 'FAILED', 'CANCELLED'].includes(e.node.status));
        return open.length === 0 ? data : undefined;
      },
      'every job of the closed team to finish',
      10_000,
    );
    const byMember = (name: string) => view.jobs.edges.map((e) => e.node).filter((j) => j.member.name === name);
    const t3 = byMember('T3').find((j) => j.kind === 'REQUEST');
    expect(t3).toMatchObject({ id: interrupted.job_id, status: 'CANCELLED', error: 'too slow' });
    expect(view.status).toBe('CLOSED');
    expect(view.members.map((m) => [m.name, m.role, m.status === 'RETIRED'])).toEqual([
      ['Lead', 'Coordinates', false],
      ['T1', 'Researches', false],
      ['T2', 'Writes', false],
      ['T3', 'Reviews', true],
    ]);
    expect(byMember('T1').find((j) => j.kind === 'REQUEST')?.status).toBe('COMPLETED');

    // Closed: no new work, still readable, still deletable.
    expect(
      codes(
        await stack.gql(`mutation($i: SendRequestInput!) { sendRequest(input: $i) { jobs { id } } }`, {
          i: { teamId: team.id, memberIds: [lead], text: 'more', clientRequestId: 'after-close' },
        }),
      ),
    ).toEqual(['TEAM_CLOSED']);
    const deleted = await stack.gql('mutation($id: ID!) { deleteTeam(input: { teamId: $id }) { deletedTeamId } }', {
      id: team.id,
    });
    expect(expectData(deleted).deleteTeam).toEqual({ deletedTeamId: team.id });
  });
});
