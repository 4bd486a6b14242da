import type { AgentRuntime, RuntimeRegistry } from '@agent-teams/core';

/** A registry over the runtimes this server runs, by name. */
export function createRuntimeRegistry(
  runtimes: readonly AgentRuntime[],
): RuntimeRegistry & { all(): readonly AgentRuntime[] } {
  const byName = new Map(runtimes.map((runtime) => [runtime.name, runtime]));
  return { get: (name) => byName.get(name) ?? null, all: () => runtimes };
}
