import { describe, expect, it } from 'vitest';
import { RetryBackoff } from './retry-backoff.js';

describe('RetryBackoff', () => {
  it('doubles the delay per failure up to the cap and resets on success', () => {
    const backoff = new RetryBackoff(100, 350);
    expect(backoff.failed('job_1', 0)).toBe(100);
    expect(backoff.failed('job_1', 0)).toBe(200);
    expect(backoff.failed('job_1', 0)).toBe(350);
    expect(backoff.failed('job_1', 1_000)).toBe(1_350);
    expect(backoff.notBefore('job_2')).toBeNull();
    backoff.succeeded('job_1');
    expect(backoff.notBefore('job_1')).toBeNull();
  });
});
