import type { GqlResponse, GraphqlStack } from './graphql-stack.js';

/** A team and its members as the tests use them. */
export interface TeamFixture {
  readonly id: string;
  readonly members: readonly { readonly id: string; readonly name: string }[];
}

export const CREATE_TEAM = `mutation($input: CreateTeamInput!) {
  createTeam(input: $input) { team { id name goal status revision members { id name label status agent { id } } } }
}`;

export const SEND_REQUEST = `mutation($input: SendRequestInput!) {
  sendRequest(input: $input) { jobs { id kind status text member { id name } requester { member { id } conversationId } } }
}`;

let counter = 0;

/** Input of a valid two-member team; override any field. */
export function teamInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    clientRequestId: `create-${counter}`,
    name: `Team ${counter}`,
    goal: 'Ship the report',
    members: [
      { name: 'Ada', agentId: 'researcher' },
      { name: 'Bob', agentId: 'writer' },
    ],
    ...overrides,
  };
}

/** Creates a team as `token`'s owner and returns it; fails the test on any error. */
export async function createTeam(
  stack: GraphqlStack,
  token?: string,
  overrides: Record<string, unknown> = {},
): Promise<TeamFixture> {
  const response = await stack.gql(CREATE_TEAM, { input: teamInput(overrides) }, token);
  return (expectData(response).createTeam as { team: TeamFixture }).team;
}

/** Sends one request to `memberIds` and returns the job ids. */
export async function sendRequest(
  stack: GraphqlStack,
  teamId: string,
  memberIds: readonly string[],
  text: string,
  token?: string,
): Promise<readonly string[]> {
  counter += 1;
  const response = await stack.gql(
    SEND_REQUEST,
    { input: { teamId, memberIds, text, clientRequestId: `send-${counter}` } },
    token,
  );
  return (expectData(response).sendRequest as { jobs: { id: string }[] }).jobs.map((job) => job.id);
}

/** The data of a response that must have no errors. */
export function expectData(response: GqlResponse): Record<string, unknown> {
  if (response.errors.length > 0 || response.data === null) {
    throw new Error(`unexpected GraphQL errors: ${JSON.stringify(response.errors)}`);
  }
  return response.data;
}
