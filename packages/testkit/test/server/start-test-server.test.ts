import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../../src/server/index.js';

/** What the queries below read. */
interface Data {
  createTeam: { team: { id: string; members: { id: string }[] } };
  sendRequest: { jobs: { id: string }[] };
  job: { status: string };
  viewer: { id: string };
  agents: { edges: unknown[] };
}

/** One GraphQL operation over real HTTP, as a host's test sends it. */
async function gql(server: TestServer, query: string, variables: Record<string, unknown> = {}, token = server.token) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: Data | null; errors?: { extensions?: { code?: string } }[] };
}

const CREATE_TEAM = `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id } } } }`;
const SEND = `mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }`;
const JOB = `query($id: ID!) { job(id: $id) { status text } }`;

describe('startTestServer', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ tokens: { 'tok-guest': 'guest' } });
  });
  afterAll(() => server.close());

  it('listens on a free loopback port and answers /health', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.wsUrl).toBe(`${server.url.replace('http', 'ws')}/graphql`);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it('runs a scripted request through GraphQL to COMPLETED', async () => {
    const created = await gql(server, CREATE_TEAM, {
      input: {
        clientRequestId: 'c1',
        name: 'Host CI',
        goal: 'Check',
        members: [
          { name: 'Ada', agentId: 'writer' },
          { name: 'Bo', agentId: 'reviewer' },
        ],
      },
    });
    expect(created.errors).toBeUndefined();
    const team = created.data?.createTeam.team as Data['createTeam']['team'];
    const sent = await gql(server, SEND, {
      input: { teamId: team.id, memberIds: [team.members[0]?.id], text: 'hello', clientRequestId: 's1' },
    });
    expect(sent.errors).toBeUndefined();
    const jobId = sent.data?.sendRequest.jobs[0]?.id as string;
    await vi.waitFor(async () => expect((await gql(server, JOB, { id: jobId })).data?.job.status).toBe('COMPLETED'), {
      timeout: 20_000,
      interval: 20,
    });
  });

  it('knows the extra tokens as other owners, and no others', async () => {
    const mine = await gql(server, '{ viewer { id } }');
    const guest = await gql(server, '{ viewer { id } }', {}, 'tok-guest');
    expect(guest.data?.viewer.id).not.toBe(mine.data?.viewer.id);
    const stranger = await gql(server, '{ viewer { id } }', {}, 'tok-nobody');
    expect(stranger.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('startTestServer options', () => {
  it('offers only the agents it is given, and close() stops listening', async () => {
    const server = await startTestServer({ agents: [{ name: 'helper', title: 'Helper' }], owner: 'o', token: 't' });
    const agents = await gql(server, '{ agents { edges { node { name title } } } }');
    expect(agents.data?.agents.edges).toEqual([{ node: { name: 'helper', title: 'Helper' } }]);
    await server.close();
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it('refuses a token given to two owners', async () => {
    await expect(startTestServer({ tokens: { 'test-token': 'someone-else' } })).rejects.toThrow(/two owners/);
  });
});
