// A host's integration test against the real Agent Teams server, started in-process by the
// testkit: a team is created and a request runs to its end through GraphQL over HTTP.
import { startTestServer } from '@agent-teams/testkit/server';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';

let server;
beforeAll(async () => {
  server = await startTestServer({ tokens: { 'tok-second': 'second-user' } });
});
afterAll(() => server.close());

async function gql(query, variables = {}, token = server.token) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json();
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

it('runs a request of a scripted member to COMPLETED', async () => {
  const { createTeam } = await gql(
    'mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id name } } } }',
    {
      input: {
        clientRequestId: 'host-ci-team',
        name: 'Host CI',
        goal: 'Prove the installed packages work',
        members: [
          { name: 'Ada', agentId: 'researcher' },
          { name: 'Bo', agentId: 'writer' },
        ],
      },
    },
  );
  const [ada] = createTeam.team.members;
  const { sendRequest } = await gql(
    'mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }',
    {
      input: {
        teamId: createTeam.team.id,
        memberIds: [ada.id],
        text: 'Check the sources',
        clientRequestId: 'host-ci-1',
      },
    },
  );
  const jobId = sendRequest.jobs[0].id;
  await vi.waitFor(
    async () => {
      const { job } = await gql('query($id: ID!) { job(id: $id) { status } }', { id: jobId });
      expect(job.status).toBe('COMPLETED');
    },
    { timeout: 20_000, interval: 25 },
  );
});

it('keeps the owners of the extra tokens apart', async () => {
  const mine = await gql('{ viewer { teams { edges { node { id } } } } }');
  const theirs = await gql('{ viewer { teams { edges { node { id } } } } }', {}, 'tok-second');
  expect(mine.viewer.teams.edges).toHaveLength(1);
  expect(theirs.viewer.teams.edges).toHaveLength(0);
});
