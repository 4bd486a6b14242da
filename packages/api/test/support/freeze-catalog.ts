import {
  type AgentDefinition,
  type AgentId,
  type AgentRuntime,
  asAgentId,
  type RuntimeRegistry,
} from '@agent-teams/core';

/** An agent catalog of one agent, `writer`, on the `scripted` runtime: what `freezeJob` looks members up in. */
export const WRITER_CATALOG: ReadonlyMap<AgentId, AgentDefinition> = new Map([
  [
    asAgentId('writer'),
    {
      id: asAgentId('writer'),
      name: 'writer',
      title: 'Writer',
      description: '',
      runtime: 'scripted',
      timeoutMs: 1_000,
      settings: {},
    },
  ],
]);

/** Runtimes that know `scripted` only; the freeze never calls it, so it is an empty stand-in. */
export const SCRIPTED_ONLY: RuntimeRegistry = {
  get: (name: string) => (name === 'scripted' ? ({} as AgentRuntime) : null),
};
