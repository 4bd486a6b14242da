import { JobPhase } from '@agent-teams/core';
import type { Builder } from './builder.js';
import type { Refs } from './refs.js';

/**
 * Adds `Job.errorCode` (add-only, contract `budgets.md`): why a FAILED or CANCELLED job ended,
 * as a stable code (`JobErrorCode`), so clients stop parsing the error text.
 */
export function addJobErrorCode(builder: Builder, refs: Refs): void {
  builder.objectField(refs.Job, 'errorCode', (t) =>
    t.string({
      nullable: true,
      description:
        'Why a FAILED or CANCELLED job ended, when the system knows: BUDGET_EXHAUSTED, TIMEOUT, CANCELLED_BY_PERSON, ' +
        'CANCELLED_BY_LEAD, CANCELLED_OUTSIDE, RUNTIME_ERROR, PROVIDER_UNAVAILABLE, AGENT_UNAVAILABLE, STATE_LOST ' +
        '(add-only); null otherwise.',
      resolve: (job) => (job.phase === JobPhase.FAILED || job.phase === JobPhase.CANCELLED ? job.errorCode : null),
    }),
  );
}
