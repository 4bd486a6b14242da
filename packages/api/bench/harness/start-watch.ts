import type { AgentRuntime, JobId } from '@agent-teams/core';

/**
 * The runtime as the scheduler should see it in a benchmark: unchanged, or told the moment each
 * `start` is entered (the end of a dispatch-latency sample).
 */
export function watchStarts(runtime: AgentRuntime, onStart: ((jobId: JobId) => void) | undefined): AgentRuntime {
  if (onStart === undefined) return runtime;
  return {
    name: runtime.name,
    ensureConversation: (args) => runtime.ensureConversation(args),
    start: (args) => {
      onStart(args.context.jobId);
      return runtime.start(args);
    },
    resume: (args) => runtime.resume(args),
    poll: (args) => runtime.poll(args),
    cancel: (args) => runtime.cancel(args),
    subscribe: (listener) => runtime.subscribe(listener),
  };
}
