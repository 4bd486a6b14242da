import { describe, expect, it } from 'vitest';
import { JobErrorCode } from './job-error-code.js';

describe('JobErrorCode', () => {
  it('keeps every published code (add-only: add new ones to this list, never remove one)', () => {
    const published = [
      'BUDGET_EXHAUSTED',
      'TIMEOUT',
      'CANCELLED_BY_PERSON',
      'CANCELLED_BY_LEAD',
      'CANCELLED_OUTSIDE',
      'RUNTIME_ERROR',
      'PROVIDER_UNAVAILABLE',
      'AGENT_UNAVAILABLE',
      'STATE_LOST',
    ];
    for (const code of published) expect(JobErrorCode).toHaveProperty(code, code);
    expect(Object.keys(JobErrorCode).sort()).toEqual([...published].sort());
  });
});
