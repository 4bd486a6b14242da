import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { refusal } from '../jobs/make-test-job.js';
import { Limits } from '../limits/limits.js';
import type { ToolCaller } from '../services/handoff-service.js';
import { planChangeWait } from './wait-tool.js';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const clock = { nowMs: () => NOW };
const caller = { team: { lastEventSeq: 42 } } as unknown as ToolCaller;
const plan = (args: Record<string, unknown>) => planChangeWait({ clock }, caller, args);

describe('planning wait_for_change', () => {
  const { min, max } = Limits.waitTimeoutMs;

  it('accepts timeout_ms at n and n±1 inside both limits and refuses just outside', () => {
    for (const ms of [min, min + 1, max - 1, max]) {
      expect(plan({ timeout_ms: ms })).toEqual({
        afterSeq: 42,
        timeoutMs: ms,
        deadline: new Date(NOW + ms).toISOString(),
      });
    }
    for (const ms of [min - 1, max + 1, 10_000.5, '10000', null]) {
      const error = refusal(() => plan({ timeout_ms: ms }));
      expect(error.code).toBe(ErrorCode.INVALID_INPUT);
      expect(error.details).toMatchObject({ field: 'timeout_ms', min, max });
    }
  });

  it('defaults after_seq to the seq at the call and refuses one past the head', () => {
    expect(plan({ timeout_ms: min, after_seq: 0 }).afterSeq).toBe(0);
    expect(plan({ timeout_ms: min, after_seq: 42 }).afterSeq).toBe(42);
    expect(refusal(() => plan({ timeout_ms: min, after_seq: 43 })).details).toMatchObject({ field: 'after_seq' });
    expect(refusal(() => plan({ timeout_ms: min, after_seq: -1 })).code).toBe(ErrorCode.INVALID_INPUT);
  });
});
