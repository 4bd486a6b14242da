import { Client, type CombinedError } from '@urql/core';
import { jsonFetchExchange } from './fetch-exchange.js';
import { createLiveSocket, type LiveSocket } from './ws-client.js';

/** Where and as whom the widget talks to the server. */
export interface Connection {
  readonly endpoint: string;
  /** Resolves the bearer token (attribute, property or the host's async callback). */
  readonly token: () => Promise<string | null>;
}

/** A failed GraphQL operation with the server's `extensions.code` (or NETWORK). */
export class WidgetError extends Error {
  constructor(
    readonly code: string,
    readonly field?: string,
  ) {
    super(`[agent-teams/widget] ${code}`);
  }
}

/** The `extensions.code` of a failed operation, or NETWORK for anything else (what the status line shows). */
export function errorCode(error: unknown): string {
  return error instanceof WidgetError ? error.code : 'NETWORK';
}

/** The widget's GraphQL access: urql for queries and mutations, graphql-ws for subscriptions. */
export interface Api {
  query<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  mutate<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  readonly live: LiveSocket;
  readonly client: Client;
  /** How many queries and mutations have gone out so far (a mark for {@link Api.onReachable}). */
  sent(): number;
  /**
   * Calls `listener` each time the server is heard from: with an operation's number (its count in
   * {@link Api.sent}) when its HTTP answer is OK, or with a new number when the socket is acknowledged.
   */
  onReachable(listener: (sent: number) => void): () => void;
  dispose(): void;
}

/** Derives the WebSocket URL (same path, ws/wss) from the GraphQL endpoint and the page's URL. */
export function socketUrl(endpoint: string, base: string): string {
  const url = new URL(endpoint, base);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/**
 * Builds the client. Every fetch carries the current token and an abort signal that `dispose()`
 * fires, so nothing is left in flight after the widget goes away.
 */
export function createApi(connection: Connection): Api {
  const aborter = new AbortController();
  // Numbered so a listener can tell an answer to a request sent after a failure from one sent before it.
  let sent = 0;
  const heard = new Set<(sent: number) => void>();
  const reached = (n: number) => {
    for (const listener of heard) listener(n);
  };
  const authorization = async () => {
    const token = await connection.token();
    return token ? `Bearer ${token}` : null;
  };
  const client = new Client({
    url: new URL(connection.endpoint, document.baseURI).toString(),
    exchanges: [
      jsonFetchExchange(async (input, init) => {
        const n = ++sent;
        const headers = new Headers(init.headers);
        const auth = await authorization();
        if (auth) headers.set('authorization', auth);
        const response = await fetch(input, { ...init, headers, signal: aborter.signal });
        if (response.ok) reached(n);
        return response;
      }),
    ],
    requestPolicy: 'network-only',
  });
  const live = createLiveSocket(socketUrl(connection.endpoint, document.baseURI), authorization);
  live.onStatus((up) => {
    if (up) reached(++sent);
  });
  const unwrap = <T>(result: { data?: unknown; error?: CombinedError }): T => {
    if (result.error) {
      const first = result.error.graphQLErrors[0];
      const ext = first?.extensions as { code?: string; field?: string } | undefined;
      if (first) throw new WidgetError(ext?.code ?? 'UNEXPECTED', ext?.field);
      throw new WidgetError('NETWORK');
    }
    return result.data as T;
  };
  return {
    client,
    live,
    query: async (query, variables = {}) => unwrap(await client.query(query, variables).toPromise()),
    mutate: async (query, variables = {}) => unwrap(await client.mutation(query, variables).toPromise()),
    sent: () => sent,
    onReachable(listener) {
      heard.add(listener);
      return () => heard.delete(listener);
    },
    dispose() {
      aborter.abort();
      live.dispose();
    },
  };
}

/** Tokens and cost, as `Usage` in the schema. */
const USAGE = 'usage { inputTokens cachedInputTokens outputTokens cost calls }';
/** A waiting question; `requestId` goes back with the answer so a changed question is caught. */
const INPUT = 'input { kind requestId question payload }';

/** The job fields every card needs. */
export const JOB_FIELDS = `id kind status text error errorCode createdAt conversationId
  member { id name conversationId }
  requester { member { id name } }
  parent { id text }
  ${INPUT} ${USAGE}
  result { text }`;

export const TEAMS_QUERY = `query Teams { viewer { id teams(first: 20) { edges { node { id name } } } } }`;
export const AGENTS_QUERY = `query Agents { agents(first: 100) { edges { node { id name title description } } } }`;
export const TEAM_QUERY = `query Team($id: ID!) { team(id: $id) { id name goal status ${USAGE}
  members { id name status conversationId role isLead agent { title name } ${USAGE} } } }`;
/** Usage totals again, after a turn ended. */
export const USAGE_QUERY = `query Usage($id: ID!) { team(id: $id) { id ${USAGE} members { id ${USAGE} } } }`;
/**
 * One page of the activity feed, with the team's event seq read before it (where the feed's
 * first `teamEvents` subscription starts). 25 per page keeps the document under the server's cost limit
 * (graphql-armor multiplies a literal `first` into the cost); the feed follows `endCursor`.
 */
export const ACTIVITY_QUERY = `query Activity($id: ID!, $revision: String, $after: String) { team(id: $id) { id status lastEventSeq
  activity(revision: $revision, first: 25, after: $after) {
    __typename
    ... on ActivityUnchanged { revision }
    ... on ActivityPage { revision jobs { pageInfo { hasNextPage endCursor }
      edges { node { ${JOB_FIELDS} receipt { id status error errorCode ${INPUT} ${USAGE} } } } } }
  }
  members { id status }
  waiting: jobs(statuses: [WAITING_CHANGE], first: 8) { edges { node { id member { id } } } } } }`;
/** A team message as the feed shows it. */
export const MESSAGE_FIELDS = 'id text delivery createdAt from { name } to { name }';
export const TEAM_EVENTS = `subscription Events($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
  __typename seq team { status }
  ... on JobChanged { job { ${JOB_FIELDS} } }
  ... on MemberChanged { member { id status } }
  ... on MemberSpawned { member { id status } }
  ... on MemberRetired { member { id status } }
  ... on MessageSent { message { ${MESSAGE_FIELDS} } } } }`;
export const JOB_PROGRESS = `subscription Progress($jobId: ID!) { jobProgress(jobId: $jobId) { textDelta toolCall } }`;
/** One page of a member's conversation, oldest first (the member is read through `node`). */
export const CONVERSATION_QUERY = `query Conversation($id: ID!, $after: String) { node(id: $id) { ... on Member { id
  conversation(first: 50, after: $after) { pageInfo { hasNextPage endCursor }
    edges { node { id role text toolName createdAt } } } } } }`;
export const CREATE_TEAM = `mutation Create($input: CreateTeamInput!) { createTeam(input: $input) { team { id name } } }`;
export const DELETE_TEAM = `mutation Delete($input: DeleteTeamInput!) { deleteTeam(input: $input) { deletedTeamId } }`;
export const RECONNECT_TEAM = `mutation Reconnect($input: ReconnectTeamInput!) { reconnectTeam(input: $input) { team { id status } } }`;
export const SEND_REQUEST = `mutation Send($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }`;
export const RESPOND = `mutation Respond($input: RespondInput!) { respond(input: $input) { job { id status } } }`;
export const CANCEL_JOB = `mutation Cancel($input: CancelJobInput!) { cancelJob(input: $input) { job { id status } } }`;
