import type { Clock } from '@agent-teams/core';

/** The real clock: the one place the server reads the system time. */
export function createSystemClock(): Clock {
  return { nowMs: () => Date.now() };
}
