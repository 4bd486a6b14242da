import type { AgentRuntime, RuntimeRegistry } from '@agent-teams/core';

/** A registry over the runtimes this server runs, by name. */
export function createRuntimeRegistry<R extends AgentRuntime>(
  runtimes: readonly R[],
): RuntimeRegistry & { all(): readonly R[] } {
  const byName = new Map(runtimes.map((runtime) => [runtime.name, runtime]));
  return { get: (name) => byName.get(name) ?? null, all: () => runtimes };
}
