import type { DomainError, JobId, Logger, OwnerId } from '@agent-teams/core';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Plugin } from 'graphql-yoga';
import { requestLogger } from '../../observability/log-fields.js';
import { bearerToken } from '../bearer-token.js';
import type { InteropDeps } from '../edge-deps.js';
import { type GraphqlRunner, type McpToolSet, memberToolSet, ownerToolSet } from './mcp-tools.js';

/** The SDK values {@link useMcpEndpoint} loads on its first request. */
type McpSdk = typeof import('./mcp-sdk.js');

/** Where the MCP server is served. */
export const MCP_PATH = '/mcp';

/** What the MCP endpoint is built from (the server's own parts). */
export interface McpEndpointDeps extends InteropDeps {
  readonly graphql: GraphqlRunner;
  /** The owner's rate limit, asked before each `tools/list`: null, or the RATE_LIMITED refusal. */
  readonly takeToken: (owner: OwnerId) => DomainError | null;
}

/**
 * The JSON-RPC error code of a `tools/list` the owner's rate limit refused (in the range JSON-RPC
 * leaves to servers; 429's digits). Its `data` is `{ code: "RATE_LIMITED", retryAfterMs }`.
 */
export const RATE_LIMITED_RPC_CODE = -32029;

const INSTRUCTIONS =
  "Agent Teams: named AI agents working together as a team. With a person's token: create teams, ask " +
  'members for work (send_request), follow jobs (get_job) and answer their questions (respond). With a ' +
  "member-run token: act as that member of its team during its job (hand work to peers, read the team's record).";

/**
 * The Yoga plugin serving the MCP server at `/mcp` (Streamable HTTP, stateless): each POST is
 * answered by a fresh SDK `Server` on a fresh stateless transport, with the tools of the caller
 * its bearer token names; no token or an unknown one is HTTP 401 with a `Bearer` challenge.
 *
 * @remarks Stateless because every call is authorized by its own token and the tools hold no
 * session state: any server of a cluster answers any request, and nothing is kept between them.
 * GET (a standalone notification stream) and DELETE (ending a session) have nothing to serve
 * without sessions: 405, as the SDK's stateless example answers. Answers are JSON, not SSE:
 * no tool streams progress.
 */
export function useMcpEndpoint(deps: McpEndpointDeps): Plugin {
  // The SDK loads on the first MCP request, not at start-up (mcp-sdk.ts). The validator is only
  // used for elicitation answers, which this server never asks for: one is enough.
  let sdk: Promise<{ sdk: McpSdk; validator: AjvJsonSchemaValidator }> | null = null;
  const loadSdk = () => {
    sdk ??= import('./mcp-sdk.js').then((loaded) => ({ sdk: loaded, validator: new loaded.AjvJsonSchemaValidator() }));
    return sdk;
  };
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== MCP_PATH) return;
      if (request.method === 'OPTIONS') return;
      if (request.method !== 'POST') {
        endResponse(
          fetchAPI.Response.json(rpcError(-32000, 'Method not allowed: this MCP server is stateless.'), {
            status: 405,
            headers: { allow: 'POST' },
          }),
        );
        return;
      }
      const authorization = request.headers.get('authorization');
      // Every line this request writes carries its id (`requestId`).
      const tools = await toolsOf(deps, authorization, requestLogger(deps.logger, request.headers));
      if (tools === null) {
        endResponse(
          fetchAPI.Response.json(rpcError(-32001, 'A valid bearer token is required.'), {
            status: 401,
            headers: { 'www-authenticate': 'Bearer realm="agent-teams"' },
          }),
        );
        return;
      }
      const { sdk: loaded, validator } = await loadSdk();
      endResponse(await serve(loaded, request, tools, deps, validator));
    },
  };
}

/** The caller's tools: a person's for an owner token, a member's for a member-run token; null otherwise. */
async function toolsOf(deps: McpEndpointDeps, authorization: string | null, log: Logger): Promise<McpToolSet | null> {
  const owner = (await deps.auth.authenticate(authorization, log))?.owner ?? null;
  if (owner !== null) {
    return ownerToolSet(deps.core, owner, (viewer, document, variables) =>
      deps.graphql(viewer, document, variables, log),
    );
  }
  const token = bearerToken(authorization);
  const jobId: JobId | null = token !== null && deps.memberRunTokens ? await deps.memberRunTokens.jobOf(token) : null;
  return jobId === null ? null : memberToolSet(Object.assign({}, deps, { logger: log }), jobId);
}

/** Answers one MCP POST with a fresh server and stateless transport, then closes both. */
async function serve(
  sdk: McpSdk,
  request: Request,
  tools: McpToolSet,
  deps: McpEndpointDeps,
  validator: AjvJsonSchemaValidator,
): Promise<Response> {
  const { Server, WebStandardStreamableHTTPServerTransport, ListToolsRequestSchema, ToolCallRequestSchema } = sdk;
  const server = new Server(
    { name: 'agent-teams', version: deps.version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    // Charged per message: one POST may carry a batch of them, each answered with every tool's
    // schema (100 in 4.7 KB of request answered 450 KB), which a tool call's token never paid for.
    const limited = tools.owner === null ? null : deps.takeToken(tools.owner);
    if (limited !== null) {
      throw new sdk.McpError(RATE_LIMITED_RPC_CODE, limited.message, { code: limited.code, ...limited.details });
    }
    return { tools: await tools.list() };
  });
  // Arguments as sent (an own `__proto__` key included); not an object is -32602 (tool-arguments.ts).
  server.setRequestHandler(ToolCallRequestSchema, (call) =>
    tools.call(call.params.name, sdk.sentArguments(call.params.sent)),
  );
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: deps.maxBodyBytes,
  });
  try {
    await server.connect(transport);
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}

function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
