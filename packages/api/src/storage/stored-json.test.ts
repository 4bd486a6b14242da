import { EMPTY_ROUND } from '@agent-teams/core';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  readStoredJson,
  readStoredRound,
  readStoredStrings,
  UNREADABLE_REPORTS_KEPT,
  UNREADABLE_WARNING,
} from './stored-json.js';

/** The process warnings of {@link UNREADABLE_WARNING}'s type, as emitted (synchronously captured). */
let warned: string[] = [];
const original = process.emitWarning;
beforeEach(() => {
  warned = [];
  process.emitWarning = ((message: string, options?: { type?: string }) => {
    if (options?.type === UNREADABLE_WARNING) warned.push(message);
    else original.call(process, message, options as never);
  }) as typeof process.emitWarning;
});
afterEach(() => {
  process.emitWarning = original;
});

let ids = 0;
const at = (column = 'input_json') => ({ table: 'jobs', column, id: `job-${++ids}` });

describe('stored JSON that no longer reads', () => {
  it('reads valid text as stored and null as null, reporting nothing', () => {
    expect(readStoredJson(at(), '{"a":[1,"数据 😀"]}')).toEqual({ a: [1, '数据 😀'] });
    expect(readStoredJson(at(), null)).toBeNull();
    expect(readStoredJson(at(), 'null')).toBeNull();
    expect(warned).toEqual([]);
  });

  it('reads unreadable text as null and reports it once, naming the table, column and row', () => {
    const where = at('pending_response_json');
    for (const text of ['{"broken', '', '\ud800', '数据', '😀']) {
      const one = { ...where, id: `${where.id}-${text.length}-${text.codePointAt(0) ?? 0}` };
      expect(readStoredJson(one, text)).toBeNull();
      expect(readStoredJson(one, text)).toBeNull();
    }
    expect(warned).toHaveLength(5);
    expect(warned[0]).toMatch(new RegExp(`^jobs\\.pending_response_json of ${where.id}-8-123 does not read as JSON`));
  });

  it(`remembers ${UNREADABLE_REPORTS_KEPT} reports: the oldest is reported again only past that`, () => {
    const rows = Array.from({ length: UNREADABLE_REPORTS_KEPT + 1 }, () => at());
    for (const row of rows.slice(0, UNREADABLE_REPORTS_KEPT - 1)) readStoredJson(row, '{');
    // n - 1 remembered: the first is still known.
    readStoredJson(rows[0] ?? at(), '{');
    expect(warned).toHaveLength(UNREADABLE_REPORTS_KEPT - 1);
    // n remembered: still known.
    readStoredJson(rows[UNREADABLE_REPORTS_KEPT - 1] ?? at(), '{');
    readStoredJson(rows[0] ?? at(), '{');
    expect(warned).toHaveLength(UNREADABLE_REPORTS_KEPT);
    // n + 1: the oldest report is forgotten, so the first row is reported again.
    readStoredJson(rows[UNREADABLE_REPORTS_KEPT] ?? at(), '{');
    readStoredJson(rows[0] ?? at(), '{');
    expect(warned).toHaveLength(UNREADABLE_REPORTS_KEPT + 2);
  });

  it('reads a list of ids, or an empty one when it does not read or holds anything else', () => {
    expect(readStoredStrings(at('recipients_json'), '["m1","数据","😀"]')).toEqual(['m1', '数据', '😀']);
    expect(warned).toEqual([]);
    for (const text of ['{', '42', '"m1"', '[1]', '["m1",null]', '{"0":"m1"}']) {
      expect(readStoredStrings(at('recipients_json'), text)).toEqual([]);
    }
    expect(warned).toHaveLength(6);
  });

  it('reads the admission round, or the empty round when it does not read or is not a round', () => {
    expect(readStoredRound('{"rotation":["alice","bob"],"served":["alice"]}')).toEqual({
      rotation: ['alice', 'bob'],
      served: ['alice'],
    });
    expect(warned).toEqual([]);
    for (const text of ['{"rotation":["alice"', '[]', '{"rotation":["alice"]}', '{"rotation":[1],"served":[]}', '7']) {
      expect(readStoredRound(text)).toBe(EMPTY_ROUND);
    }
    // One row, one report while remembered.
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(/^scheduler_state\.round_json of 1 does not read as JSON/);
  });
  it('never throws on any stored text: it reads as JSON.parse reads it, or as null', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.json()), (text) => {
        let expected: unknown = null;
        try {
          expected = JSON.parse(text);
        } catch {
          expected = null;
        }
        expect(readStoredJson(at(), text)).toEqual(expected);
        expect(() => readStoredStrings(at(), text)).not.toThrow();
        expect(() => readStoredRound(text)).not.toThrow();
      }),
    );
  });
});
