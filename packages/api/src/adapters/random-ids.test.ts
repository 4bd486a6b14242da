import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRandomIds, ID_RANDOM_BYTES, ID_TIME_CHARS, idTime, orderedIdBody } from './random-ids.js';

/** A body: ten ordered base-32 time digits, then 12 random bytes as 16 base64url characters. */
const BODY = /^[0-9a-v]{10}[A-Za-z0-9_-]{16}$/;

describe('createRandomIds', () => {
  it('mints prefixed ids: the time in base 32, then 12 random bytes in base64url', () => {
    const before = Date.now();
    const ids = createRandomIds();
    const minted = [ids.teamId(), ids.memberId(), ids.jobId(), ids.recordId(), ids.conversationId()];
    const after = Date.now();
    const prefixes = ['team_', 'member_', 'job_', 'record_', 'conversation_'];
    minted.forEach((id, i) => {
      const prefix = prefixes[i] as string;
      expect(id.startsWith(prefix)).toBe(true);
      const body = id.slice(prefix.length);
      expect(body).toMatch(BODY);
      const time = Number.parseInt(body.slice(0, ID_TIME_CHARS), 32);
      expect(time).toBeGreaterThanOrEqual(before);
      expect(time).toBeLessThanOrEqual(after);
      expect(Buffer.from(body.slice(ID_TIME_CHARS), 'base64url')).toHaveLength(ID_RANDOM_BYTES);
    });
    expect(ids.messageId()).toMatch(/^message_[0-9a-v]{10}[A-Za-z0-9_-]{16}$/);
    expect(ids.taskId()).toMatch(/^task_[0-9a-v]{10}[A-Za-z0-9_-]{16}$/);
  });

  it('never repeats an id across many refills of its pool (each random byte used once)', () => {
    const ids = createRandomIds();
    // 256 ids per pool: 10,000 ids cross the refill 39 times, most of them in one millisecond.
    const tokens = Array.from({ length: 10_000 }, () => ids.jobId().slice('job_'.length + ID_TIME_CHARS));
    expect(new Set(tokens).size).toBe(tokens.length);
    // No 6-byte half appears twice either: overlapping slices of the pool would share halves.
    const halves = tokens.flatMap((token) => {
      const hex = Buffer.from(token, 'base64url').toString('hex');
      return [hex.slice(0, 12), hex.slice(12)];
    });
    expect(new Set(halves).size).toBe(halves.length);
  });
});

describe('orderedIdBody', () => {
  it('sorts by its time first, as text, whatever the random part', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 }), fc.integer({ min: 1, max: 2 ** 40 }), (at, later) => {
        const first = orderedIdBody(at);
        const second = orderedIdBody(at + later);
        expect(first < second).toBe(true);
        expect(first.localeCompare(second, 'en')).toBe(-1);
        expect(first).toMatch(BODY);
      }),
    );
  });

  it('gives ids of one millisecond the same time and different random parts', () => {
    const bodies = Array.from({ length: 300 }, () => orderedIdBody(1_764_900_000_000));
    expect(new Set(bodies.map((body) => body.slice(0, ID_TIME_CHARS)))).toEqual(new Set(['01jbm3pk80']));
    expect(new Set(bodies).size).toBe(bodies.length);
  });
});

describe('idTime', () => {
  it('is the milliseconds in ten base-32 digits, read back by parseInt', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 32 ** ID_TIME_CHARS - 1 }), (ms) => {
        const time = idTime(ms);
        expect(time).toMatch(/^[0-9a-v]{10}$/);
        expect(Number.parseInt(time, 32)).toBe(ms);
        // Asked again: the kept answer is the same.
        expect(idTime(ms)).toBe(time);
      }),
    );
  });

  it('keeps the order of any two instants, by bytes and by an English collation', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 32 ** ID_TIME_CHARS - 2 }), fc.nat(), (ms, step) => {
        const later = Math.min(32 ** ID_TIME_CHARS - 1, ms + 1 + step);
        expect(idTime(ms) < idTime(later)).toBe(true);
        expect(idTime(ms).localeCompare(idTime(later), 'en')).toBe(-1);
      }),
    );
  });

  it('writes zeros for a clock before 1970 or not a number, and drops fractions', () => {
    expect(idTime(-1)).toBe('0000000000');
    expect(idTime(Number.NaN)).toBe('0000000000');
    expect(idTime(Number.POSITIVE_INFINITY)).toBe('0000000000');
    expect(idTime(31.9)).toBe('000000000v');
    expect(idTime(32)).toBe('0000000010');
  });

  it('keeps the low ten digits past the last instant they hold (the year 37,000)', () => {
    expect(idTime(32 ** ID_TIME_CHARS - 1)).toBe('vvvvvvvvvv');
    expect(idTime(32 ** ID_TIME_CHARS)).toBe('0000000000');
    expect(idTime(32 ** ID_TIME_CHARS + 33)).toBe('0000000011');
  });
});
