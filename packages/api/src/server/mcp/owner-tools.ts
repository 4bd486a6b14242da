import { Limits } from '@agent-teams/core';

/** A JSON Schema as MCP's `tools/list` carries it (any draft 2020-12 keywords). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * One tool of a person (owner token): its MCP face, the GraphQL operation it runs and how the
 * arguments become variables and the answer becomes the tool result.
 *
 * @remarks Each tool runs its operation through the server's own GraphQL endpoint, so it
 * validates, authorizes, masks errors and answers exactly as a GraphQL client is answered: no
 * second implementation of any rule.
 */
export interface OwnerToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema & { readonly properties: Readonly<Record<string, JsonSchema>> };
  /** The GraphQL document (one operation). */
  readonly document: string;
  /** The operation's variables from the tool's (snake_case) arguments. */
  variables(args: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /** The tool's result from the operation's `data`; undefined when nothing was found (NOT_FOUND). */
  pick(data: Readonly<Record<string, unknown>>): unknown;
}

const JOB_FIELDS = `id kind status text error rootId conversationId createdAt startedAt finishedAt
  team { id name } member { id name } requester { member { id name } } parent { id }
  input { kind requestId question payload } result { available text truncated }`;
const TEAM_FIELDS = `id name goal status createdAt
  members { id name label role isLead status agent { id name title } }`;
const PAGE_FIELDS = 'pageInfo { hasNextPage endCursor } totalCount';

const idArg = (what: string): JsonSchema => ({ type: 'string', minLength: 1, description: `Id of the ${what}.` });
const keyArg = (what: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: Limits.clientRequestId.maxChars,
  description: `Idempotency key: reusing it with the same content returns the same ${what} instead of a second one.`,
});
const pageArgs: Readonly<Record<string, JsonSchema>> = {
  first: {
    type: 'integer',
    minimum: 1,
    maximum: Limits.connectionPage.max,
    description: `Page size (default ${Limits.connectionPage.default}).`,
  },
  after: { type: 'string', description: 'pageInfo.endCursor of the previous page.' },
};

function object(properties: Readonly<Record<string, JsonSchema>>, required: readonly string[] = []) {
  return { type: 'object', properties, required, additionalProperties: false } as const;
}

const field = (data: Readonly<Record<string, unknown>>, ...path: string[]): unknown =>
  path.reduce<unknown>((value, key) => (value as Record<string, unknown> | null | undefined)?.[key], data);

/**
 * The person's tools, in the order clients are shown them. `create_team`'s agent list is filled
 * in per `tools/list` from the catalog (see `withCatalog`).
 */
export const OWNER_TOOL_SPECS: readonly OwnerToolSpec[] = [
  {
    name: 'list_teams',
    description: "The person's teams, newest first, with their members (ids, names, agents, status).",
    inputSchema: object(pageArgs),
    document: `query($first: Int, $after: String) { viewer { teams(first: $first, after: $after) {
      edges { cursor node { ${TEAM_FIELDS} } } pageInfo { hasNextPage endCursor } } } }`,
    variables: (args) => ({ first: args.first ?? 20, after: args.after ?? null }),
    pick: (data) => field(data, 'viewer', 'teams'),
  },
  {
    name: 'create_team',
    description:
      `Create a team of ${Limits.minMembers}–${Limits.maxMembers} named members, each run by an agent of the ` +
      `catalog, working towards a goal. At most ${Limits.teamsPerOwner} teams per person. The team is READY ` +
      'once every member conversation exists (usually at once).',
    inputSchema: object(
      {
        client_request_id: keyArg('team'),
        name: { type: 'string', description: `Team name, at most ${Limits.teamName.maxChars} characters.` },
        goal: {
          type: 'string',
          description: `What the team works towards, at most ${Limits.goal.maxChars} characters.`,
        },
        members: {
          type: 'array',
          minItems: Limits.minMembers,
          maxItems: Limits.maxMembers,
          description: 'The members, in roster order; names must differ.',
          items: object(
            {
              name: { type: 'string', description: `Member name, at most ${Limits.memberName.maxChars} characters.` },
              agent_id: { type: 'string', description: 'Id of a catalog agent.' },
              // No length keywords: the role's rules and errors are createTeam's (validateRole), as over GraphQL.
              role: {
                type: 'string',
                description:
                  "The member's role, shown in the roster, the team context and its instructions: one line of " +
                  `1–${Limits.memberRole.maxChars} characters.`,
              },
              lead: {
                type: 'boolean',
                description:
                  "true for the team's lead (who alone may spawn, retire, close and interrupt); at most one.",
              },
            },
            ['name', 'agent_id'],
          ),
        },
      },
      ['client_request_id', 'name', 'goal', 'members'],
    ),
    document: `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { ${TEAM_FIELDS} } } }`,
    variables: (args) => ({
      input: {
        clientRequestId: args.client_request_id,
        name: args.name,
        goal: args.goal,
        members: Array.isArray(args.members)
          ? args.members.map((member: unknown) => {
              const { name, agent_id, role, lead } = (member ?? {}) as Record<string, unknown>;
              return { name, agentId: agent_id, role, lead };
            })
          : args.members,
      },
    }),
    pick: (data) => data.createTeam,
  },
  {
    name: 'send_request',
    description:
      'Ask one or more members of a team to do a task: one request (job) per member. Work is asynchronous: ' +
      'read the jobs with get_job; a job in WAITING_INPUT asks a question (answer it with respond).',
    inputSchema: object(
      {
        team_id: idArg('team'),
        member_ids: {
          type: 'array',
          minItems: 1,
          maxItems: Limits.maxMembers,
          items: { type: 'string' },
          description: 'Ids of the members to ask (from list_teams), each once.',
        },
        text: { type: 'string', description: `The task, at most ${Limits.taskText.maxChars} characters.` },
        client_request_id: keyArg('requests'),
      },
      ['team_id', 'member_ids', 'text', 'client_request_id'],
    ),
    document: `mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { ${JOB_FIELDS} } } }`,
    variables: (args) => ({
      input: {
        teamId: args.team_id,
        memberIds: args.member_ids,
        text: args.text,
        clientRequestId: args.client_request_id,
      },
    }),
    pick: (data) => data.sendRequest,
  },
  {
    name: 'get_job',
    description:
      'Read a job (a request or a receipt): its status, the question it waits on (input), and its result ' +
      'once COMPLETED.',
    inputSchema: object({ job_id: idArg('job') }, ['job_id']),
    document: `query($id: ID!) { job(id: $id) { ${JOB_FIELDS} } }`,
    variables: (args) => ({ id: args.job_id }),
    pick: (data) => data.job ?? undefined,
  },
  {
    name: 'respond',
    description:
      'Answer a job in WAITING_INPUT: text for a CLARIFICATION question, any JSON value for an INTERRUPT. ' +
      'The job then resumes.',
    inputSchema: object(
      {
        job_id: idArg('job'),
        response: { description: 'The answer: a string for a CLARIFICATION, any JSON for an INTERRUPT.' },
        client_request_id: keyArg('answer'),
        input_request_id: {
          type: 'string',
          description: 'input.requestId of the question answered; a changed question is then refused.',
        },
      },
      ['job_id', 'response', 'client_request_id'],
    ),
    document: `mutation($input: RespondInput!) { respond(input: $input) { job { ${JOB_FIELDS} } } }`,
    variables: (args) => ({
      input: {
        jobId: args.job_id,
        response: args.response,
        clientRequestId: args.client_request_id,
        inputRequestId: args.input_request_id ?? null,
      },
    }),
    pick: (data) => data.respond,
  },
  {
    name: 'cancel_job',
    description: 'Cancel an unfinished job; a finished one is returned unchanged (alreadyFinished: true).',
    inputSchema: object({ job_id: idArg('job') }, ['job_id']),
    document: `mutation($input: CancelJobInput!) { cancelJob(input: $input) { job { ${JOB_FIELDS} } alreadyFinished } }`,
    variables: (args) => ({ input: { jobId: args.job_id } }),
    pick: (data) => data.cancelJob,
  },
  {
    name: 'list_inbox',
    description: "The person's jobs waiting for an answer (WAITING_INPUT), oldest first.",
    inputSchema: object(pageArgs),
    document: `query($first: Int, $after: String) { viewer { inbox(first: $first, after: $after) {
      edges { cursor node { ${JOB_FIELDS} } } ${PAGE_FIELDS} } } }`,
    variables: (args) => ({ first: args.first ?? 20, after: args.after ?? null }),
    pick: (data) => field(data, 'viewer', 'inbox'),
  },
];

/** A catalog agent as `create_team` lists it. */
export interface CatalogAgent {
  readonly id: string;
  readonly title: string;
  readonly description: string;
}

/**
 * `create_team` with the catalog's agents as the allowed `agent_id` values, so a model can pick
 * one without another call; unchanged when the catalog could not be read.
 */
export function withCatalog(spec: OwnerToolSpec, agents: readonly CatalogAgent[] | null): OwnerToolSpec {
  if (spec.name !== 'create_team' || agents === null || agents.length === 0) return spec;
  const members = spec.inputSchema.properties.members as JsonSchema & { items: { properties: object } };
  const choices = agents.map((agent) => `${agent.id} (${agent.title}: ${agent.description})`).join('; ');
  const agentId = { type: 'string', enum: agents.map((agent) => agent.id), description: `One of: ${choices}.` };
  return {
    ...spec,
    inputSchema: {
      ...spec.inputSchema,
      properties: {
        ...spec.inputSchema.properties,
        members: {
          ...members,
          items: { ...members.items, properties: { ...members.items.properties, agent_id: agentId } },
        },
      },
    },
  };
}
