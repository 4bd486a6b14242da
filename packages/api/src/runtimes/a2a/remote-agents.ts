import { type AgentDefinition, type Logger, RuntimeError } from '@agent-teams/core';
import type { A2aRunDoc } from './a2a-run-doc.js';
import { type A2aSettings, A2aSettingsError, parseA2aSettings } from './a2a-settings.js';
import { connectRemoteAgent, type RemoteAgent, RemoteCallError } from './remote-agent.js';

/** How long cancelling a remote task may take before it is given up (logged). */
export const REMOTE_CANCEL_MS = 5_000;

/**
 * The remote agents of the `a2a` runtime, each connected once (its card read, its client built)
 * and shared by every run of every member it serves.
 *
 * @remarks Keyed by card URL and key, so a changed key connects anew. A failed connection is not
 * kept (the next run tries again); a refusal later drops the agent (`forget`), so a card that
 * changed is read again.
 */
export class RemoteAgents {
  readonly #agents = new Map<string, Promise<RemoteAgent>>();
  readonly #env: Readonly<Record<string, string | undefined>>;

  /** @param env - where `apiKeyEnv` names are looked up (the process environment in production). */
  constructor(env: Readonly<Record<string, string | undefined>>) {
    this.#env = env;
  }

  /** The validated settings of an agent; unusable ones reject the run. */
  settings(agent: AgentDefinition): A2aSettings {
    try {
      return parseA2aSettings(agent.settings);
    } catch (error) {
      const key = error instanceof A2aSettingsError ? error.key : 'settings';
      throw new RuntimeError('rejected', `agent "${agent.name}" has unusable a2a settings (${key})`, { cause: error });
    }
  }

  /**
   * The agent's remote, connected with its key.
   * @throws RemoteCallError `access` when its key variable is unset, or the connection's failure.
   */
  connect(agent: AgentDefinition, signal: AbortSignal): Promise<RemoteAgent> {
    const { cardUrl, apiKeyEnv } = this.settings(agent);
    const apiKey = apiKeyEnv === null ? null : (this.#env[apiKeyEnv] ?? '');
    if (apiKey === '') {
      throw new RemoteCallError('access', `The environment variable ${apiKeyEnv} holding the key is not set.`);
    }
    const key = `${cardUrl}\n${apiKey ?? ''}`;
    let remote = this.#agents.get(key);
    if (!remote) {
      remote = connectRemoteAgent(cardUrl, apiKey, signal);
      this.#agents.set(key, remote);
      remote.catch(() => {
        if (this.#agents.get(key) === remote) this.#agents.delete(key);
      });
    }
    return remote;
  }

  /** Drops every connection to the agent's card. */
  forget(agent: AgentDefinition): void {
    const { cardUrl } = this.settings(agent);
    for (const key of this.#agents.keys()) if (key.startsWith(`${cardUrl}\n`)) this.#agents.delete(key);
  }

  /** Best effort: cancels a run's remote task while the run has no outcome. */
  async cancelRun(
    agent: AgentDefinition,
    doc: Pick<A2aRunDoc, 'remoteTaskId' | 'outcome'>,
    logger: Logger,
  ): Promise<void> {
    if (doc.remoteTaskId !== null && doc.outcome === null) await this.cancel(agent, doc.remoteTaskId, logger);
  }

  /** Best effort: asks the agent to cancel a task (within {@link REMOTE_CANCEL_MS}; logged when it cannot). */
  async cancel(agent: AgentDefinition, taskId: string, logger: Logger): Promise<void> {
    try {
      const signal = AbortSignal.timeout(REMOTE_CANCEL_MS);
      const remote = await this.connect(agent, signal);
      await remote.client.cancelTask({ tenant: '', id: taskId, metadata: undefined }, { signal });
    } catch (error) {
      logger.warn('the remote agent did not confirm cancelling its task', { taskId, error: String(error) });
    }
  }
}
