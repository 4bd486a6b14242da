import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER } from '@a2a-js/sdk';
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { A2AError } from '@a2a-js/sdk/errors';

/**
 * Why a call to a remote agent failed: `access` (it refused our credentials: 401/403), `transient`
 * (connection, 429, 5xx: try again), `rejected` (this turn cannot go on: a refused request, an
 * unusable card, a task the agent no longer knows) or `aborted` (the run was cancelled).
 */
export class RemoteCallError extends Error {
  constructor(
    readonly kind: 'access' | 'transient' | 'rejected' | 'aborted',
    message: string,
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super(message, options);
    this.name = 'RemoteCallError';
    this.retryAfterMs = options?.retryAfterMs ?? null;
  }

  /** The agent's `retry-after`, when it sent one. */
  readonly retryAfterMs: number | null;
}

/** A remote agent we can call: the SDK's client built from its card. */
export interface RemoteAgent {
  readonly client: Client;
  /** The card says it streams: send with `SendStreamingMessage`, follow with `SubscribeToTask`. */
  readonly streaming: boolean;
}

function retryAfter(response: Response): number | undefined {
  const after = Number(response.headers.get('retry-after'));
  return Number.isFinite(after) && after >= 0 ? after * 1_000 : undefined;
}

/**
 * A fetch for the SDK's client that sends our bearer token and classifies HTTP failures before
 * the SDK sees them: the one table of what is retried, what disconnects the team and what fails.
 */
export function classifyingFetch(apiKey: string | null): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (apiKey !== null) headers.set('authorization', `Bearer ${apiKey}`);
    let response: Response;
    try {
      response = await fetch(input, { ...init, headers });
    } catch (error) {
      if (init?.signal?.aborted) throw new RemoteCallError('aborted', 'The run was cancelled.', { cause: error });
      throw new RemoteCallError('transient', `connection to the remote agent failed: ${describe(error)}`, {
        cause: error,
      });
    }
    const status = response.status;
    if (status === 401 || status === 403) {
      await response.body?.cancel();
      throw new RemoteCallError('access', `The remote agent refused our credentials (HTTP ${status}).`);
    }
    if (status === 429 || status >= 500) {
      await response.body?.cancel();
      const after = retryAfter(response);
      throw new RemoteCallError('transient', `HTTP ${status}`, after === undefined ? {} : { retryAfterMs: after });
    }
    return response;
  };
}

/**
 * Reads the agent's card and builds the SDK's JSON-RPC client from it.
 *
 * @throws RemoteCallError: `access` for 401/403, `transient` for connection failures and 5xx,
 * `rejected` for a missing or unusable card.
 */
export async function connectRemoteAgent(
  cardUrl: string,
  apiKey: string | null,
  signal: AbortSignal,
): Promise<RemoteAgent> {
  const fetchImpl = classifyingFetch(apiKey);
  const response = await fetchImpl(cardUrl, { headers: { [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION }, signal });
  if (!response.ok) {
    await response.body?.cancel();
    throw new RemoteCallError(
      'rejected',
      `The remote agent's card at ${cardUrl} could not be read (HTTP ${response.status}).`,
    );
  }
  try {
    const card = new DefaultAgentCardResolver().normalizeAgentCard(await response.json());
    const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] });
    const client = await factory.createFromAgentCard(card);
    return { client, streaming: card.capabilities?.streaming === true };
  } catch (error) {
    throw new RemoteCallError('rejected', `The remote agent's card at ${cardUrl} is not usable: ${describe(error)}`, {
      cause: error,
    });
  }
}

/**
 * Classifies whatever a client call threw: our own classified errors pass; the agent's protocol
 * errors (a refused request, an unknown task) are `rejected`; a broken stream or an unreadable
 * answer is `transient` (the task is followed again by its id).
 */
export function classifyRemoteError(error: unknown, signal: AbortSignal): RemoteCallError {
  if (signal.aborted) return new RemoteCallError('aborted', 'The run was cancelled.', { cause: error });
  if (error instanceof RemoteCallError) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof RemoteCallError) return cause;
  if (error instanceof A2AError || cause instanceof A2AError) {
    return new RemoteCallError('rejected', `The remote agent refused: ${describe(error)}`, { cause: error });
  }
  if (error instanceof Error && /^HTTP error/.test(error.message)) {
    return new RemoteCallError('rejected', `The remote agent refused: ${error.message}`, { cause: error });
  }
  return new RemoteCallError('transient', `the remote agent's answer broke off: ${describe(error)}`, { cause: error });
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
