import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, expectData, sendRequest, type TeamFixture } from './fixtures.js';
import { createGraphqlStack, type GqlResponse, type GraphqlStack, TOKENS } from './graphql-stack.js';

let stack: GraphqlStack;
let aliceTeam: TeamFixture;
let aliceJob: string;
beforeAll(async () => {
  stack = await createGraphqlStack();
  aliceTeam = await createTeam(stack, TOKENS.alice, { name: 'Alice secret team' });
  [aliceJob = ''] = await sendRequest(stack, aliceTeam.id, [String(aliceTeam.members[0]?.id)], 'secret task');
  await stack.waitForJob(aliceJob, ['COMPLETED']);
  await createTeam(stack, TOKENS.bob, { name: 'Bob team' });
});
afterAll(async () => stack.close());

const UNKNOWN = { team: 'team_999999', member: 'member_999999', job: 'job_999999' };

/** What bob sees for an operation on alice's id, next to what he sees for an id that never existed. */
async function asBob(query: string, aliceVars: Record<string, unknown>, unknownVars: Record<string, unknown>) {
  const strip = (response: GqlResponse) => ({
    status: response.status,
    data: response.data,
    errors: response.errors.map(({ message, extensions }) => ({ message, extensions })),
  });
  return {
    alice: strip(await stack.gql(query, aliceVars, TOKENS.bob)),
    unknown: strip(await stack.gql(query, unknownVars, TOKENS.bob)),
  };
}

const TEAM_FIELDS = `id name jobs { totalCount } activity { __typename } capacity { requests } context { goal }
  members { id conversation { edges { node { id } } } }`;

describe("bob's token on alice's ids", () => {
  it('alice herself sees every field the tests below hide from bob', async () => {
    const data = expectData(
      await stack.gql(`query($id: ID!) { team(id: $id) { ${TEAM_FIELDS} } }`, { id: aliceTeam.id }),
    );
    expect(data.team).toMatchObject({ id: aliceTeam.id, jobs: { totalCount: 1 }, capacity: { requests: 1 } });
  });

  it('viewer.teams lists only his own teams', async () => {
    const data = expectData(await stack.gql('{ viewer { teams { edges { node { name } } } } }', {}, TOKENS.bob));
    expect(data.viewer).toEqual({ teams: { edges: [{ node: { name: 'Bob team' } }] } });
  });

  it.each([
    ['team', `query($id: ID!) { team(id: $id) { ${TEAM_FIELDS} } }`, 'team'],
    ['job', 'query($id: ID!) { job(id: $id) { id text result { text } } }', 'job'],
    ['node (team)', `query($id: ID!) { node(id: $id) { id ... on Team { ${TEAM_FIELDS} } } }`, 'team'],
    [
      'node (member)',
      'query($id: ID!) { node(id: $id) { id ... on Member { name conversation { edges { node { id } } } } } }',
      'member',
    ],
    ['node (job)', 'query($id: ID!) { node(id: $id) { id ... on Job { text } } }', 'job'],
  ] as const)('%s answers null, exactly as for an id that never existed', async (_name, query, kind) => {
    const aliceId = kind === 'team' ? aliceTeam.id : kind === 'job' ? aliceJob : String(aliceTeam.members[0]?.id);
    const { alice, unknown } = await asBob(query, { id: aliceId }, { id: UNKNOWN[kind] });
    expect(alice.errors).toEqual([]);
    expect(Object.values(alice.data ?? {})).toEqual([null]);
    expect(alice).toEqual(unknown);
  });

  it('mentionTargets never offers her members', async () => {
    const data = expectData(
      await stack.gql('query { mentionTargets(query: "") { id label team { name } } }', {}, TOKENS.bob),
    );
    const targets = data.mentionTargets as { team: { name: string } }[];
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.every((target) => target.team.name === 'Bob team')).toBe(true);
  });

  it.each([
    [
      'sendRequest',
      'mutation($team: ID!, $member: ID!) { sendRequest(input: {teamId: $team, memberIds: [$member], text: "x", clientRequestId: "b"}) { jobs { id } } }',
      () => ({ team: aliceTeam.id, member: String(aliceTeam.members[0]?.id) }),
      { team: UNKNOWN.team, member: UNKNOWN.member },
    ],
    [
      'cancelJob',
      'mutation($job: ID!) { cancelJob(input: {jobId: $job}) { job { id } } }',
      () => ({ job: aliceJob }),
      { job: UNKNOWN.job },
    ],
    [
      'deleteTeam',
      'mutation($team: ID!) { deleteTeam(input: {teamId: $team}) { deletedTeamId } }',
      () => ({ team: aliceTeam.id }),
      { team: UNKNOWN.team },
    ],
    [
      'reconnectTeam',
      'mutation($team: ID!) { reconnectTeam(input: {teamId: $team}) { team { id } } }',
      () => ({ team: aliceTeam.id }),
      { team: UNKNOWN.team },
    ],
  ] as const)(
    '%s answers NOT_FOUND, exactly as for an id that never existed',
    async (_name, query, aliceVars, unknownVars) => {
      const { alice, unknown } = await asBob(query, aliceVars(), unknownVars);
      expect(alice.errors.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
      expect(alice).toEqual(unknown);
    },
  );

  it('left her team and job untouched', async () => {
    const data = expectData(
      await stack.gql('query($t: ID!, $j: ID!) { team(id: $t) { jobs { totalCount } } job(id: $j) { status } }', {
        t: aliceTeam.id,
        j: aliceJob,
      }),
    );
    expect(data).toEqual({ team: { jobs: { totalCount: 1 } }, job: { status: 'COMPLETED' } });
  });
});
