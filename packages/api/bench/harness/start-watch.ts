import type { JobId } from '@agent-teams/core';
import type { AppRuntime } from '../../src/app/create-app.js';
import type { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';

/**
 * The runtime as the scheduler should see it in a benchmark: unchanged, or told the moment each
 * `start` (the end of a dispatch-latency sample) or `resume` (a woken wait) is entered.
 */
export function watchStarts(
  runtime: ScriptedRuntime,
  onStart: ((jobId: JobId) => void) | undefined,
  onResume?: (jobId: JobId) => void,
): AppRuntime {
  if (onStart === undefined && onResume === undefined) return runtime;
  return {
    name: runtime.name,
    ensureConversation: (args) => runtime.ensureConversation(args),
    start: (args) => {
      onStart?.(args.context.jobId);
      return runtime.start(args);
    },
    resume: (args) => {
      onResume?.(args.context.jobId);
      return runtime.resume(args);
    },
    poll: (args) => runtime.poll(args),
    cancel: (args) => runtime.cancel(args),
    subscribe: (listener) => runtime.subscribe(listener),
    dispose: () => runtime.dispose(),
  };
}
