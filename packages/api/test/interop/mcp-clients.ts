import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** An MCP client (the SDK's own) connected to `${baseUrl}/mcp` with a bearer token. */
export async function connectMcp(baseUrl: string, token: string | null): Promise<Client> {
  const client = new Client({ name: 'agent-teams-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: token === null ? {} : { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A tool result's JSON: the parsed text of its first content item. */
export function resultJson(result: CallToolResult | Record<string, unknown>): unknown {
  const [first] = (result as CallToolResult).content;
  if (first?.type !== 'text') throw new Error(`tool result without text: ${JSON.stringify(result)}`);
  return JSON.parse(first.text);
}

/** Calls a tool and answers its parsed JSON with the error flag. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; json: unknown }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { isError: result.isError === true, json: resultJson(result) };
}

/** The error code of a refused tool call's `{"error":{"code","message"}}`. */
export function refusalCode(json: unknown): unknown {
  return (json as { error?: { code?: unknown } }).error?.code;
}

/** Posts one raw JSON-RPC message to `/mcp` (to drive what the SDK client never sends itself). */
export async function postMcp(
  baseUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: unknown }> {
  const response = await fetch(new URL('/mcp', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text === '' ? null : JSON.parse(text) };
}
