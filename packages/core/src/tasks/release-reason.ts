/**
 * Why claims went back to the board, as the `reason` of their TASK_CHANGED events says it (the
 * retire and close writes pass these to `releaseClaims`).
 */
export const releaseReason = {
  /** A member was retired: its claimed tasks are open again. */
  retired: (memberName: string): string => `${memberName} was retired; the claim was released.`,
  /** The team was closed: every claimed task is open again. */
  closed: 'The team was closed; every claim was released.',
} as const;
