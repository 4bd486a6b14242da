import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  readStoredJson,
  readStoredRound,
  readStoredStrings,
  UNREADABLE_REPORTS_KEPT,
  UNREADABLE_WARNING,
} from './stored-json.js';

/** The warnings of {@link UNREADABLE_WARNING}'s type: this test's, and every test's of the file. */
let warned: string[] = [];
const everyReport: string[] = [];
const original = process.emitWarning;
beforeEach(() => {
  warned = [];
  process.emitWarning = ((message: string, options?: { type?: string }) => {
    if (options?.type !== UNREADABLE_WARNING) return original.call(process, message, options as never);
    warned.push(message);
    everyReport.push(message);
  }) as typeof process.emitWarning;
});
afterEach(() => {
  process.emitWarning = original;
});

let ids = 0;
const at = (column = 'input_json') => ({ table: 'jobs', column, id: `job-${++ids}` });

// The reports a process gives are module state: the tests run in this order, the bound's last but
// one and the fuzzer's (which reads thousands of values) last.
describe('stored JSON that no longer reads', () => {
  it('reads valid text as stored and null as null, reporting nothing', () => {
    expect(readStoredJson(at(), '{"a":[1,"数据 😀"]}')).toEqual({ a: [1, '数据 😀'] });
    expect(readStoredJson(at(), null)).toBeNull();
    expect(readStoredJson(at(), 'null')).toBeNull();
    expect(warned).toEqual([]);
  });

  it('reads unreadable text as null and reports it once, naming the row and the length, never the text', () => {
    const where = at('pending_response_json');
    for (const text of ['{"broken', '', '\ud800', '数据', '😀']) {
      const one = { ...where, id: `${where.id}-${text.length}-${text.codePointAt(0) ?? 0}` };
      expect(readStoredJson(one, text)).toBeNull();
      expect(readStoredJson(one, text)).toBeNull();
    }
    expect(warned).toHaveLength(5);
    expect(warned[0]).toBe(
      `jobs.pending_response_json of ${where.id}-8-123 does not read as JSON (8 characters); read as empty`,
    );
    // JSON.parse's own message quotes the text: a stored secret, or a line break forging a log line.
    readStoredJson(at('wait_json'), '"hunter2-password');
    readStoredJson({ table: 'jobs', column: 'wait_json', id: 'job\n(node:1) forged' }, 'hunter2\n');
    expect(warned.slice(5).join(' ')).not.toMatch(/hunter2|\n/);
    expect(warned.at(-1)).toBe(
      'jobs.wait_json of job?(node:1) forged does not read as JSON (8 characters); read as empty',
    );
  });

  it('reads a list of ids, or an empty one when it does not read or holds anything else', () => {
    expect(readStoredStrings(at('recipients_json'), '["m1","数据","😀"]')).toEqual(['m1', '数据', '😀']);
    expect(warned).toEqual([]);
    for (const text of ['{', '42', '"m1"', '[1]', '["m1",null]', '{"0":"m1"}', 'null']) {
      expect(readStoredStrings(at('recipients_json'), text)).toEqual([]);
    }
    expect(warned).toHaveLength(7);
    expect(warned[6]).toMatch(/ is not a list of strings \(4 characters\); read as empty$/);
    expect(warned[1]).toMatch(/ is not a list of strings \(2 characters\); read as empty$/);
  });

  it('reads the admission round, or null when it does not read or is not a round, reported once', () => {
    expect(readStoredRound('{"rotation":["alice","bob"],"served":["alice"]}')).toEqual({
      rotation: ['alice', 'bob'],
      served: ['alice'],
    });
    expect(warned).toEqual([]);
    expect(readStoredRound('[]')).toBeNull();
    expect(warned).toEqual(['scheduler_state.round_json of 1 is not an admission round (2 characters); read as empty']);
    for (const text of [
      '{"rotation":["alice"',
      '{"rotation":["alice"]}',
      '{"rotation":[1],"served":[]}',
      'null',
      '7',
    ]) {
      expect(readStoredRound(text)).toBeNull();
    }
    // One row: reported once.
    expect(warned).toHaveLength(1);
  });

  it(`reports ${UNREADABLE_REPORTS_KEPT} values, then once that it stops, however often they are read`, () => {
    const earlier = everyReport.length;
    const rows = Array.from({ length: UNREADABLE_REPORTS_KEPT - earlier + 2 }, () => at());
    const readFirst = (count: number) => {
      for (const row of rows.slice(0, count)) readStoredJson(row, '{');
    };
    // n - 1 values reported in all (read twice: once each).
    readFirst(UNREADABLE_REPORTS_KEPT - earlier - 1);
    readFirst(UNREADABLE_REPORTS_KEPT - earlier - 1);
    expect(everyReport).toHaveLength(UNREADABLE_REPORTS_KEPT - 1);
    // n: the last value reported.
    readFirst(UNREADABLE_REPORTS_KEPT - earlier);
    expect(everyReport).toHaveLength(UNREADABLE_REPORTS_KEPT);
    expect(everyReport.at(-1)).toMatch(/does not read as JSON/);
    // n + 1: one warning that reports stop, then nothing more, whatever is read again.
    readFirst(rows.length);
    readFirst(rows.length);
    readStoredJson(rows[0] ?? at(), '{');
    expect(everyReport).toHaveLength(UNREADABLE_REPORTS_KEPT + 1);
    expect(everyReport.at(-1)).toBe(
      `${UNREADABLE_REPORTS_KEPT} unreadable stored values reported; further ones are not`,
    );
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
