import type { YogaServerInstance } from 'graphql-yoga';
import type { GraphqlAnswer } from './mcp/mcp-tools.js';

/**
 * Runs one GraphQL operation through the server's own `/graphql` endpoint (in process, no
 * socket) with the caller's `Authorization`, and answers the JSON body a client would read.
 *
 * @remarks Going through `yoga.fetch` rather than executing the schema directly keeps every
 * edge of the endpoint in place: request limits, the one error mask, and the 401 of an
 * unauthenticated operation.
 */
export async function runGraphql(
  // biome-ignore lint/suspicious/noExplicitAny: Yoga's server-context type parameter is internal.
  yoga: YogaServerInstance<any, any>,
  authorization: string,
  document: string,
  variables: Record<string, unknown>,
): Promise<GraphqlAnswer> {
  const response = await yoga.fetch(`http://localhost${yoga.graphqlEndpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization },
    body: JSON.stringify({ query: document, variables }),
  });
  return (await response.json()) as GraphqlAnswer;
}
