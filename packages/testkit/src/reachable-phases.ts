import { JOB_TRANSITIONS, JobPhase } from '@agent-teams/core';

/**
 * The phases reachable from each phase along the job machine's transition table (itself
 * included): the invariant "a job only moves along the table" that the model-based test and the
 * crash test check on every sample.
 */
export const REACHABLE_PHASES: ReadonlyMap<JobPhase, ReadonlySet<JobPhase>> = new Map(
  Object.values(JobPhase).map((from) => {
    const seen = new Set<JobPhase>([from]);
    const todo = [from];
    while (todo.length > 0) {
      const phase = todo.pop() as JobPhase;
      for (const next of Object.values(JOB_TRANSITIONS[phase])) {
        if (next !== undefined && !seen.has(next)) {
          seen.add(next);
          todo.push(next);
        }
      }
    }
    return [from, seen];
  }),
);
