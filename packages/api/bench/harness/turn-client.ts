import WebSocket from 'ws';
import { ProviderHttp, readBodyText } from '../../src/runtimes/openai/provider-http.js';
import { monotonicMs } from '../live-clock.js';

const EVENTS = `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
  __typename seq ... on JobChanged { job { id status } } } }`;

const SEND = `mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id status } } }`;

/** A job's status as a subscriber saw it, with the receive time (`monotonicMs()`). */
export interface SeenStatus {
  readonly jobId: string;
  readonly status: string;
  readonly at: number;
}

/**
 * What a user of the API does for one turn: `sendRequest` over HTTP and a graphql-ws
 * `teamEvents` subscription on which the job's COMPLETED shows up.
 */
export interface TurnClient {
  /** Resolves once the socket is acknowledged and every team is subscribed (first frame seen). */
  readonly ready: Promise<void>;
  /** Sends one request to one member; resolves with the job id when the mutation answered. */
  send(teamId: string, memberId: string, text: string, key: string): Promise<string>;
  /** Resolves when the subscriber has seen `jobId` reach `status` (receive time). */
  seen(jobId: string, status: string): Promise<number>;
  close(): void;
}

/**
 * Opens one graphql-transport-ws socket at `httpUrl` (as `ws:`) with a `teamEvents` subscription per team (from
 * `afterSeq` 0) and answers `seen` from its frames. A small client of its own, so what is timed
 * is the server, not a client library.
 */
export function openTurnClient(httpUrl: string, token: string, teamIds: readonly string[]): TurnClient {
  const socket = new WebSocket(`${httpUrl.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
    perMessageDeflate: false,
  });
  // The direct call's own transport (`provider-http.ts`: `node:http` over kept connections), so
  // neither leg of a sample pays for a client library the other does not.
  const http = new ProviderHttp();
  const statuses = new Map<string, number>();
  const waiters = new Map<string, (at: number) => void>();
  const ready = new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    // A socket the server closes before acknowledging it (a refused token) fails the round now,
    // not at the round's own timeout (no-op once acknowledged).
    socket.on('close', (code, reason) =>
      reject(new Error(`[agent-teams/bench] socket closed before connection_ack: ${code} ${reason.toString()}`)),
    );
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })),
    );
    socket.on('message', (data: Buffer) => {
      const at = monotonicMs();
      const frame = JSON.parse(data.toString()) as {
        type: string;
        payload?: { data?: { teamEvents?: { job?: { id: string; status: string } } }; errors?: unknown };
      };
      if (frame.type === 'connection_ack') {
        for (const [index, teamId] of teamIds.entries()) {
          const variables = { teamId, afterSeq: 0 };
          socket.send(JSON.stringify({ id: String(index), type: 'subscribe', payload: { query: EVENTS, variables } }));
        }
        resolve();
      } else if (frame.type === 'next') {
        const job = frame.payload?.data?.teamEvents?.job;
        if (job === undefined) return;
        const key = `${job.id}/${job.status}`;
        statuses.set(key, at);
        waiters.get(key)?.(at);
        waiters.delete(key);
      } else if (frame.type === 'ping') socket.send('{"type":"pong"}');
      else if (frame.type === 'error') reject(new Error(`[agent-teams/bench] ${JSON.stringify(frame.payload)}`));
    });
  });
  return {
    ready,
    async send(teamId, memberId, text, key) {
      const json = (await postJson(http, `${httpUrl}/graphql`, token, {
        query: SEND,
        variables: { input: { teamId, memberIds: [memberId], text, clientRequestId: key } },
      })) as { data?: { sendRequest?: { jobs: { id: string }[] } }; errors?: unknown };
      const id = json.data?.sendRequest?.jobs[0]?.id;
      if (id === undefined)
        throw new Error(`[agent-teams/bench] sendRequest failed: ${JSON.stringify(json).slice(0, 500)}`);
      return id;
    },
    seen(jobId, status) {
      const key = `${jobId}/${status}`;
      const at = statuses.get(key);
      if (at !== undefined) {
        statuses.delete(key);
        return Promise.resolve(at);
      }
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`[agent-teams/bench] ${key} not seen in 10 s`)), 10_000);
        waiters.set(key, (seenAt) => {
          clearTimeout(timer);
          statuses.delete(key);
          resolve(seenAt);
        });
      });
    },
    close: () => {
      socket.terminate();
      http.close();
    },
  };
}

/** How long a `sendRequest` may take to answer in full (as long as `seen` waits for a status). */
const ANSWER_TIMEOUT_MS = 10_000;

/**
 * POSTs `body` as JSON with a bearer token through `http` and parses the JSON answer (any status:
 * GraphQL errors come back as JSON).
 *
 * @remarks The runtime's transport, not `fetch`: the direct call of a sample goes through it, and
 * on the 2 × EPYC host of the benchmarks `fetch` (undici) took 0.74 ms p50 for a POST that
 * `node:http` made in 0.35 ms (docs/benchmarks.md, forty-seventh pass), a difference of clients
 * that was counted as the server's. An answer not complete within {@link ANSWER_TIMEOUT_MS} fails
 * the call.
 */
async function postJson(http: ProviderHttp, url: string, token: string, body: unknown): Promise<unknown> {
  const signal = AbortSignal.timeout(ANSWER_TIMEOUT_MS);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const response = await http.post(new URL(url), headers, Buffer.from(JSON.stringify(body)), signal, ANSWER_TIMEOUT_MS);
  const text = await readBodyText(response.body, signal);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`[agent-teams/bench] HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`, { cause: error });
  }
}
