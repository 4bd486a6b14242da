import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../budget/fit-to-budget.js';
import { Limits } from '../limits/limits.js';
import { type TeamEvent, TeamEventKind } from '../ports/event-sink.js';
import { WAKE_CHANGES_MAX, wakeResult, wakesWaiter } from './change-wait.js';
import type { JobId, MemberId, OwnerId, TeamId } from './ids.js';

const waiter = {
  id: 'job_w' as JobId,
  memberId: 'member_w' as MemberId,
  wait: { requestId: 'w', afterSeq: 10, timeoutMs: 10_000, deadline: '2026-01-01T00:00:10.000Z' },
};
const event = (seq: number, kind: TeamEvent['kind'], refs: Partial<TeamEvent> = {}): TeamEvent => ({
  teamId: 'team_1' as TeamId,
  owner: 'alice' as OwnerId,
  seq,
  kind,
  jobId: null,
  recordId: null,
  memberId: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...refs,
});

describe('what wakes a waiting job', () => {
  it('is any event after its seq except its own parking', () => {
    expect(wakesWaiter(event(10, TeamEventKind.TEAM_CHANGED), waiter)).toBe(false);
    expect(wakesWaiter(event(11, TeamEventKind.TEAM_CHANGED), waiter)).toBe(true);
    expect(wakesWaiter(event(11, TeamEventKind.JOB_CHANGED, { jobId: waiter.id }), waiter)).toBe(false);
    expect(wakesWaiter(event(11, TeamEventKind.MEMBER_CHANGED, { memberId: waiter.memberId }), waiter)).toBe(false);
    expect(wakesWaiter(event(11, TeamEventKind.MEMBER_CHANGED, { memberId: 'member_x' as MemberId }), waiter)).toBe(
      true,
    );
    expect(wakesWaiter(event(11, TeamEventKind.MEMBER_RETIRED, { memberId: waiter.memberId }), waiter)).toBe(true);
    expect(wakesWaiter(event(11, TeamEventKind.JOB_CHANGED, { jobId: 'job_new' as JobId }), waiter)).toBe(true);
  });
});

describe('the result of a woken wait', () => {
  it('says timed_out only when nothing changed', () => {
    expect(wakeResult([], 12)).toEqual({ timed_out: true, seq: 12, changes: [] });
    expect(wakeResult([event(11, TeamEventKind.RECORD_APPENDED, { recordId: 'record_1' as never })], 12)).toEqual({
      timed_out: false,
      seq: 12,
      changes: [{ kind: 'RECORD_APPENDED', seq: 11, record_id: 'record_1' }],
    });
  });

  it('names the task of a task change, and the reason when the system made it', () => {
    const changes = [
      event(11, TeamEventKind.TASK_CHANGED, { taskId: 'task_1' as never }),
      event(12, TeamEventKind.TASK_CHANGED, { taskId: 'task_2' as never, reason: 'Ada was retired' }),
    ];
    expect(wakeResult(changes, 12).changes).toEqual([
      { kind: 'TASK_CHANGED', seq: 11, task_id: 'task_1' },
      { kind: 'TASK_CHANGED', seq: 12, task_id: 'task_2', reason: 'Ada was retired' },
    ]);
  });

  it('lists at most WAKE_CHANGES_MAX changes: n-1 and n all, n+1 cut and marked', () => {
    // Ids as the server mints them (`job_` and 26 characters: decision 0233).
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        event(11 + i, TeamEventKind.JOB_CHANGED, { jobId: `job_${'a'.repeat(26)}` as JobId }),
      );
    expect(wakeResult(many(WAKE_CHANGES_MAX - 1), 1).changes).toHaveLength(WAKE_CHANGES_MAX - 1);
    expect(wakeResult(many(WAKE_CHANGES_MAX), 1)).not.toHaveProperty('more');
    expect(wakeResult(many(WAKE_CHANGES_MAX), 1).changes).toHaveLength(WAKE_CHANGES_MAX);
    const over = wakeResult(many(WAKE_CHANGES_MAX + 1), 1);
    expect(over.changes).toHaveLength(WAKE_CHANGES_MAX);
    expect(over.more).toBe(true);
  });

  it('stays within the 24,000-byte tool budget whatever the ids, listing as many as fit', () => {
    const long = (prefix: string, i: number) => `${prefix}_${'中'.repeat(60)}😀${i}`;
    const changes = Array.from({ length: WAKE_CHANGES_MAX }, (_, i) =>
      event(11 + i, TeamEventKind.JOB_CHANGED, {
        jobId: long('job', i) as JobId,
        memberId: long('member', i) as MemberId,
      }),
    );
    const result = wakeResult(changes, 1);
    expect(jsonBytes(result)).toBeLessThanOrEqual(Limits.toolResponseBytes);
    expect(result.more).toBe(true);
    const one = jsonBytes(result.changes[0]) + 1;
    // Cut only where the next entry would not fit.
    expect(jsonBytes(result) + one).toBeGreaterThan(Limits.toolResponseBytes);
  });
});
