import {
  type Core,
  isDomainError,
  type JobId,
  LEAD_ONLY_TOOLS,
  type Logger,
  MEMBER_TOOL_SPECS,
  type OwnerId,
  toolErrorExtras,
} from '@agent-teams/core';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { OUTSIDE_WAIT_TOOL, type OutsideWaitDeps, waitForChangeOutside } from '../../events/outside-wait.js';
import { UNEXPECTED_ERROR_MESSAGE } from '../mask-error.js';
import { type CatalogAgent, OWNER_TOOL_SPECS, type OwnerToolSpec, withCatalog } from './owner-tools.js';

/** A GraphQL answer as the endpoint returns it (already masked by the server's error edge). */
export interface GraphqlAnswer {
  readonly data?: Readonly<Record<string, unknown>> | null;
  readonly errors?: readonly { readonly message: string; readonly extensions?: Record<string, unknown> }[];
}

/** Runs one GraphQL operation as an authenticated owner. */
export type GraphqlRunner = (
  viewer: OwnerId,
  document: string,
  variables: Record<string, unknown>,
  /** The calling request's logger (its `requestId`), for the line of an unexpected error. */
  log?: Logger,
) => Promise<GraphqlAnswer>;

/** The tools one MCP caller sees and calls. */
export interface McpToolSet {
  /** The person whose rate limit the set's listing spends (null: a member-run token's set). */
  readonly owner: OwnerId | null;
  list(): Promise<Tool[]>;
  call(name: string, args: Readonly<Record<string, unknown>>): Promise<CallToolResult>;
}

/** Code of a refusal whose cause is not a domain error (logged; never shown to the caller). */
const UNEXPECTED = 'UNEXPECTED';

/** A successful tool result: the JSON text, plus the value as structured content when it is an object. */
export function jsonResult(value: unknown): CallToolResult {
  const structured =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? { structuredContent: value as Record<string, unknown> }
      : {};
  return { content: [{ type: 'text', text: JSON.stringify(value ?? null) }], ...structured };
}

/**
 * A refusal as a tool result: `isError` with `{"error":{"code","message"}}` text, plus `details`
 * the caller acts on (`retryAfterMs` of RATE_LIMITED).
 */
export function errorResult(code: string, message: string, details: Record<string, unknown> = {}): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code, message, ...details } }) }] };
}

/**
 * The member tools of one member-run token, exactly as `invokeTeamTool` runs them: the core's
 * registry (`MEMBER_TOOL_SPECS`) is the list, `core.tools.invoke` the call, so tools the core adds
 * appear here without a change.
 */
export function memberToolSet(deps: OutsideWaitDeps & { readonly logger: Logger }, jobId: JobId): McpToolSet {
  const { core, logger } = deps;
  return {
    owner: null,
    list: async () => {
      // The lead's tools to the team's lead only, as the openai runtime offers them (`toolsFor`):
      // any other member calling one gets NOT_LEAD.
      const lead = await isLeadOf(core, jobId);
      return MEMBER_TOOL_SPECS.filter((spec) => lead || !LEAD_ONLY_TOOLS.has(spec.name)).map((spec) => ({
        name: spec.name,
        description: spec.description,
        inputSchema: spec.inputSchema as unknown as Tool['inputSchema'],
      }));
    },
    async call(name, args) {
      try {
        // The caller's turn runs elsewhere: its wait holds this request (events/outside-wait.ts).
        if (name === OUTSIDE_WAIT_TOOL) return jsonResult(await waitForChangeOutside(deps, jobId, args));
        return jsonResult(await core.tools.invoke(jobId, name, args));
      } catch (error) {
        if (isDomainError(error)) return errorResult(error.code, error.message, toolErrorExtras(error));
        logger.error('unexpected error in an MCP member tool', { tool: name, error });
        return errorResult(UNEXPECTED, UNEXPECTED_ERROR_MESSAGE);
      }
    },
  };
}

/** Whether the member running `jobId` is its team's lead (false when the job or member is gone). */
async function isLeadOf(core: Core, jobId: JobId): Promise<boolean> {
  const [job] = await core.load.jobs([jobId]);
  if (job?.memberId == null) return false;
  const [member] = await core.load.members([job.memberId]);
  return member?.isLead === true;
}

/** The catalog's agents for `create_team`, or null when the catalog cannot be read. */
async function catalogAgents(core: Core): Promise<readonly CatalogAgent[] | null> {
  try {
    const page = await core.agents.search({ first: 100 });
    return page.edges.map(({ node }) => ({ id: node.id, title: node.title, description: node.description }));
  } catch {
    return null;
  }
}

/** The argument check (zod's), loaded on the first owner tool call like the SDK (mcp-sdk.ts). */
let argumentCheck: Promise<typeof import('./tool-arguments.js')['argumentProblem']> | null = null;

/**
 * Checks the arguments against the tool's `inputSchema`: GraphQL's input coercion alone would let
 * `5` through as an `ID` (NOT_FOUND instead of INVALID_INPUT) and a lone string as a list.
 */
async function argumentProblem(spec: OwnerToolSpec, args: Readonly<Record<string, unknown>>): Promise<string | null> {
  argumentCheck ??= import('./tool-arguments.js').then((loaded) => loaded.argumentProblem);
  return (await argumentCheck)(spec.name, spec.inputSchema, args);
}

/**
 * The person's tools of one owner token: each runs its GraphQL operation as that owner, so rules,
 * scoping and error codes are the GraphQL API's, and the result is the JSON a GraphQL client reads.
 */
export function ownerToolSet(core: Core, viewer: OwnerId, graphql: GraphqlRunner): McpToolSet {
  return {
    owner: viewer,
    async list() {
      const agents = await catalogAgents(core);
      return OWNER_TOOL_SPECS.map((spec) => withCatalog(spec, agents)).map((spec) => ({
        name: spec.name,
        description: spec.description,
        inputSchema: spec.inputSchema as Tool['inputSchema'],
      }));
    },
    async call(name, args) {
      const spec = OWNER_TOOL_SPECS.find((candidate) => candidate.name === name);
      if (spec === undefined) return errorResult('INVALID_INPUT', `There is no tool "${name}".`);
      const problem = await argumentProblem(spec, args);
      if (problem !== null) return errorResult('INVALID_INPUT', problem);
      const answer = await graphql(viewer, spec.document, spec.variables(args));
      const [first] = answer.errors ?? [];
      if (first !== undefined) {
        const retryAfterMs = first.extensions?.retryAfterMs;
        return errorResult(graphqlErrorCode(first), first.message, retryAfterMs === undefined ? {} : { retryAfterMs });
      }
      const value = spec.pick(answer.data ?? {});
      return value === undefined ? errorResult('NOT_FOUND', 'Not found.') : jsonResult(value);
    },
  };
}

/**
 * The code of a GraphQL error: its `extensions.code`; an uncoded one is either the masked
 * unexpected error or a GraphQL request error (a variable of the wrong type), i.e. bad input.
 */
function graphqlErrorCode(error: NonNullable<GraphqlAnswer['errors']>[number]): string {
  const code = error.extensions?.code;
  if (typeof code === 'string') return code;
  return error.message === UNEXPECTED_ERROR_MESSAGE ? UNEXPECTED : 'INVALID_INPUT';
}
