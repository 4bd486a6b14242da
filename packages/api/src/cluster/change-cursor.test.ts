import { describe, expect, it } from 'vitest';
import { ChangeCursor } from './change-cursor.js';

const T0 = 1_000_000;

describe('ChangeCursor', () => {
  it('delivers new ids once and ignores history at or below the start', () => {
    const cursor = new ChangeCursor(10, { gapTimeoutMs: 100 });
    expect(cursor.accept(9, T0)).toBe(false);
    expect(cursor.accept(10, T0)).toBe(false);
    expect(cursor.accept(11, T0)).toBe(true);
    expect(cursor.accept(11, T0)).toBe(false);
    expect(cursor.position).toBe(11);
  });

  it('holds the position below a missing id and delivers the late id once', () => {
    const cursor = new ChangeCursor(0, { gapTimeoutMs: 100 });
    expect(cursor.accept(1, T0)).toBe(true);
    expect(cursor.accept(4, T0)).toBe(true);
    expect(cursor.gaps).toEqual([2, 3]);
    expect(cursor.position).toBe(1);
    expect(cursor.accept(3, T0 + 50)).toBe(true);
    expect(cursor.accept(3, T0 + 50)).toBe(false);
    expect(cursor.accept(4, T0 + 50)).toBe(false);
    expect(cursor.position).toBe(1);
    expect(cursor.accept(2, T0 + 60)).toBe(true);
    expect(cursor.gaps).toEqual([]);
    expect(cursor.position).toBe(4);
  });

  it('gives up a gap after the timeout and then ignores it', () => {
    const cursor = new ChangeCursor(0, { gapTimeoutMs: 100 });
    cursor.accept(3, T0);
    cursor.accept(6, T0 + 50);
    expect(cursor.expire(T0 + 99)).toBe(0);
    expect(cursor.expire(T0 + 100)).toBe(2);
    expect(cursor.gaps).toEqual([4, 5]);
    expect(cursor.position).toBe(3);
    expect(cursor.accept(1, T0 + 120)).toBe(false);
    expect(cursor.expire(T0 + 150)).toBe(2);
    expect(cursor.position).toBe(6);
    expect(cursor.abandoned).toBe(4);
  });

  it('waits for at most maxGaps missing ids, giving up the oldest', () => {
    const cursor = new ChangeCursor(0, { gapTimeoutMs: 100, maxGaps: 3 });
    cursor.accept(3, T0);
    cursor.accept(6, T0);
    expect(cursor.gaps).toEqual([2, 4, 5]);
    expect(cursor.abandoned).toBe(1);
    cursor.accept(1_000, T0);
    expect(cursor.gaps).toEqual([997, 998, 999]);
    // 7..996 never waited for, and 2, 4, 5 pushed out by the bound.
    expect(cursor.abandoned).toBe(1 + 990 + 3);
    expect(cursor.accept(4, T0)).toBe(false);
  });
});
