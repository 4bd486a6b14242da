import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { refusal } from '../jobs/make-test-job.js';
import { decodeCursor, encodeCursor, hashFilter, pageSize } from './cursor.js';

declare function btoa(data: string): string;
declare function atob(data: string): string;

describe('encodeCursor / decodeCursor', () => {
  it('round-trips any kind, seq and filter hash through URL-safe text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
        fc.maxSafeInteger(),
        fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        (kind, seq, filter) => {
          const cursor = encodeCursor(filter === undefined ? { kind, seq } : { kind, seq, filter });
          expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
          expect(decodeCursor(cursor, kind, filter)).toBe(seq);
        },
      ),
    );
  });

  it('encodes the versioned JSON tuple', () => {
    const cursor = encodeCursor({ kind: 'job', seq: 42, filter: 'abc' });
    const json = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    expect(JSON.parse(json)).toEqual({ v: 1, k: 'job', s: 42, f: 'abc' });
  });

  it('rejects a cursor minted for another filter with CURSOR_MISMATCH', () => {
    const cursor = encodeCursor({ kind: 'job', seq: 7, filter: hashFilter({ kind: 'REQUEST' }) });
    expect(refusal(() => decodeCursor(cursor, 'job', hashFilter({ kind: 'RECEIPT' }))).code).toBe(
      ErrorCode.CURSOR_MISMATCH,
    );
    expect(refusal(() => decodeCursor(cursor, 'job')).code).toBe(ErrorCode.CURSOR_MISMATCH);
    const unfiltered = encodeCursor({ kind: 'job', seq: 7 });
    expect(refusal(() => decodeCursor(unfiltered, 'job', 'f')).details).toEqual({ field: 'after' });
  });

  it('rejects a cursor of another list as INVALID_INPUT naming the field', () => {
    const cursor = encodeCursor({ kind: 'team', seq: 3 });
    const error = refusal(() => decodeCursor(cursor, 'job', undefined, 'cursor'));
    expect(error.code).toBe(ErrorCode.INVALID_INPUT);
    expect(error.details).toEqual({ field: 'cursor' });
  });

  it('rejects garbage as INVALID_INPUT', () => {
    const wrongVersion = btoa(JSON.stringify({ v: 2, k: 'job', s: 1 })).replace(/=+$/, '');
    const fractional = btoa(JSON.stringify({ v: 1, k: 'job', s: 1.5 })).replace(/=+$/, '');
    for (const garbage of [
      '',
      'not a cursor!',
      '%%%',
      'eyJ',
      'a'.repeat(600),
      wrongVersion,
      fractional,
      btoa('null'),
    ]) {
      expect(refusal(() => decodeCursor(garbage, 'job')).code).toBe(ErrorCode.INVALID_INPUT);
    }
    fc.assert(
      fc.property(fc.string(), (s) => {
        try {
          decodeCursor(s, 'job');
        } catch (error) {
          return error instanceof DomainError && error.code === ErrorCode.INVALID_INPUT;
        }
        return false;
      }),
    );
  });
});

describe('hashFilter', () => {
  it('ignores key order at every depth and is 16 hex digits', () => {
    const a = hashFilter({ team: 't', filter: { kind: 'REQUEST', memberId: 'm' } });
    const b = hashFilter({ filter: { memberId: 'm', kind: 'REQUEST' }, team: 't' });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
  });

  it('tells different filters apart, including array order and non-ASCII text', () => {
    const hashes = new Set([
      hashFilter({ statuses: ['QUEUED', 'RUNNING'] }),
      hashFilter({ statuses: ['RUNNING', 'QUEUED'] }),
      hashFilter({ query: '数据' }),
      hashFilter({ query: '数据库' }),
      hashFilter({}),
      hashFilter(null),
    ]);
    expect(hashes.size).toBe(6);
  });

  it('is the FNV-1a 64 hash of the canonical JSON text', () => {
    // The reference below reproduces the published vectors first, then is compared with hashFilter.
    expect(fnv1a64('')).toBe('cbf29ce484222325');
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c');
    expect(hashFilter('a')).toBe(fnv1a64('"a"'));
    expect(hashFilter({ b: 1, a: [true] })).toBe(fnv1a64('{"a":[true],"b":1}'));
    expect(hashFilter(1)).toBe(fnv1a64('1'));
  });
});

/** Reference FNV-1a 64 over ASCII text, written the textbook way. */
function fnv1a64(ascii: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const c of ascii) hash = BigInt.asUintN(64, (hash ^ BigInt(c.charCodeAt(0))) * 0x100000001b3n);
  return hash.toString(16).padStart(16, '0');
}

describe('pageSize', () => {
  it('uses the default when absent and accepts 1 through max', () => {
    expect(pageSize(undefined, 8, 20)).toBe(8);
    expect(pageSize(null, 8, 20)).toBe(8);
    expect(pageSize(1, 8, 20)).toBe(1);
    expect(pageSize(20, 8, 20)).toBe(20);
  });

  it('refuses 0, max+1, negatives and fractions as INVALID_INPUT on first', () => {
    for (const first of [0, 21, -1, 2.5, Number.NaN]) {
      const error = refusal(() => pageSize(first, 8, 20));
      expect(error.code).toBe(ErrorCode.INVALID_INPUT);
      expect(error.details).toEqual({ field: 'first', min: 1, max: 20 });
    }
    expect(refusal(() => pageSize(0, 8, 20, 'limit')).details.field).toBe('limit');
  });
});
