import type { ServerProcess } from './server-process.js';

/** A GraphQL response as tests read it. */
export interface GqlResponse {
  // biome-ignore lint/suspicious/noExplicitAny: tests read loosely typed GraphQL JSON.
  readonly data?: Record<string, any> | null;
  readonly errors?: readonly { readonly message: string; readonly extensions?: { readonly code?: string } }[];
}

/** POSTs one GraphQL operation to a server with a bearer token. */
export async function gql(
  server: ServerProcess,
  token: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<GqlResponse> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as GqlResponse;
}

/** Like {@link gql}, but throws (with the errors as JSON) unless the operation succeeded. */
// biome-ignore lint/suspicious/noExplicitAny: tests read loosely typed GraphQL JSON.
export async function gqlData(...args: Parameters<typeof gql>): Promise<Record<string, any>> {
  const result = await gql(...args);
  if (result.errors?.length || !result.data)
    throw new Error(`GraphQL failed on ${args[0].name}: ${JSON.stringify(result)}`);
  return result.data;
}

/** A team as the tests address it. */
export interface ClusterTeam {
  readonly id: string;
  readonly members: readonly { readonly id: string; readonly name: string }[];
}

const CREATE_TEAM = `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id name } } } }`;
const AGENTS = ['researcher', 'reviewer', 'writer'];

/** Creates a team of `size` members named `m0`, `m1`, ... (single words, so `!handoff m3 ...` names them). */
export async function createTeam(server: ServerProcess, token: string, key: string, size = 8): Promise<ClusterTeam> {
  const members = Array.from({ length: size }, (_, i) => ({ name: `m${i}`, agentId: AGENTS[i % AGENTS.length] }));
  const data = await gqlData(server, token, CREATE_TEAM, {
    input: { clientRequestId: key, name: `Team ${key}`, goal: 'Prove the cluster', members },
  });
  return data.createTeam.team as ClusterTeam;
}

const SEND = `mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }`;

/** What one `sendRequest` answered: the job id, or the first error's code (`'UNEXPECTED'` without one). */
export type SendOutcome = { readonly jobId: string } | { readonly code: string };

/** Sends one request to one member through `server`. */
export async function sendRequest(
  server: ServerProcess,
  token: string,
  input: { teamId: string; memberId: string; text: string; clientRequestId: string },
): Promise<SendOutcome> {
  const result = await gql(server, token, SEND, {
    input: {
      teamId: input.teamId,
      memberIds: [input.memberId],
      text: input.text,
      clientRequestId: input.clientRequestId,
    },
  });
  const jobId = result.data?.sendRequest?.jobs?.[0]?.id;
  if (typeof jobId === 'string' && !result.errors?.length) return { jobId };
  return { code: result.errors?.[0]?.extensions?.code ?? 'UNEXPECTED' };
}

/** Like {@link sendRequest}, but throws unless a job was made. */
export async function sendOk(...args: Parameters<typeof sendRequest>): Promise<string> {
  const outcome = await sendRequest(...args);
  if ('code' in outcome) throw new Error(`sendRequest on ${args[0].name} refused: ${outcome.code}`);
  return outcome.jobId;
}

/** A job as {@link teamJobs} lists it. */
export interface JobView {
  readonly id: string;
  readonly kind: 'REQUEST' | 'RECEIPT';
  readonly status: string;
  readonly text: string;
  readonly member: { readonly name: string } | null;
  readonly parent: { readonly id: string } | null;
  readonly result: { readonly available: boolean; readonly text: string | null };
}

const TEAM_JOBS = `query($id: ID!) { team(id: $id) { jobs(first: 100) { edges { node {
  id kind status text member { name } parent { id } result { available text } } } } } }`;

/** The team's jobs (oldest first, at most 100), read through `server`. */
export async function teamJobs(server: ServerProcess, token: string, teamId: string): Promise<JobView[]> {
  const data = await gqlData(server, token, TEAM_JOBS, { id: teamId });
  return (data.team.jobs.edges as { node: JobView }[]).map((edge) => edge.node);
}

/** One message of a member's conversation. */
export interface ConversationView {
  readonly role: 'USER' | 'ASSISTANT' | 'TOOL';
  readonly text: string | null;
  readonly toolName: string | null;
  readonly job: { readonly id: string } | null;
}

const CONVERSATIONS = `query($id: ID!) { team(id: $id) { members { name conversation(first: 50) { edges { node {
  role text toolName job { id } } } } } } }`;

/** Every member's conversation (`Member.conversation`), by member name. */
export async function conversations(
  server: ServerProcess,
  token: string,
  teamId: string,
): Promise<Map<string, ConversationView[]>> {
  const data = await gqlData(server, token, CONVERSATIONS, { id: teamId });
  const members = data.team.members as { name: string; conversation: { edges: { node: ConversationView }[] } }[];
  return new Map(members.map((m) => [m.name, m.conversation.edges.map((edge) => edge.node)]));
}
