import { connectRemoteAgent, type RemoteAgent } from './remote-agent.js';

/**
 * The remote agents of this runtime, each connected once (its card read, its client built) and
 * shared by every run of every member it serves.
 *
 * @remarks Keyed by card URL and key, so a changed key connects anew. A failed connection is not
 * kept (the next run tries again); a refusal later drops the agent (`forget`), so a card that
 * changed is read again.
 */
export class RemoteAgents {
  readonly #agents = new Map<string, Promise<RemoteAgent>>();

  connect(cardUrl: string, apiKey: string | null, signal: AbortSignal): Promise<RemoteAgent> {
    const key = `${cardUrl}\n${apiKey ?? ''}`;
    let agent = this.#agents.get(key);
    if (!agent) {
      agent = connectRemoteAgent(cardUrl, apiKey, signal);
      this.#agents.set(key, agent);
      agent.catch(() => {
        if (this.#agents.get(key) === agent) this.#agents.delete(key);
      });
    }
    return agent;
  }

  /** Drops every connection to `cardUrl`. */
  forget(cardUrl: string): void {
    for (const key of this.#agents.keys()) if (key.startsWith(`${cardUrl}\n`)) this.#agents.delete(key);
  }
}
