import { expectData } from '../graphql/fixtures.js';
import type { GraphqlStack } from '../graphql/graphql-stack.js';
import type { GqlResponse } from '../support/test-app.js';

/** The lifecycle mutations as the tests send them. */
export const SPAWN = `mutation($input: SpawnMemberInput!) {
  spawnMember(input: $input) { member { id name role isLead status } } }`;
export const RETIRE = `mutation($id: ID!) { retireMember(input: { memberId: $id }) { member { id name status } } }`;
export const CLOSE = `mutation($id: ID!) { closeTeam(input: { teamId: $id }) { team { id status } } }`;
export const INTERRUPT = `mutation($id: ID!, $reason: String!) {
  interruptMember(input: { memberId: $id, reason: $reason }) { job { id status error } } }`;

let counter = 0;

/** Spawns `name` into `teamId` as the owner (a fresh key unless given). */
export function spawn(
  stack: GraphqlStack,
  teamId: string,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<GqlResponse> {
  counter += 1;
  return stack.gql(SPAWN, {
    input: { teamId, name, agentId: 'researcher', clientRequestId: `spawn-${counter}`, ...extra },
  });
}

/** The spawned member of a response that must succeed. */
export function spawned(response: GqlResponse): { id: string; name: string; role: string | null; status: string } {
  return (
    expectData(response).spawnMember as { member: { id: string; name: string; role: string | null; status: string } }
  ).member;
}
