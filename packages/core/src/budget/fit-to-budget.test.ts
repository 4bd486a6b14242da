import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasLoneSurrogate, truncateUtf8, utf8ByteLength } from '../text/text-measure.js';
import { fitToBudget, jsonBytes } from './fit-to-budget.js';

interface Item {
  readonly seq: number;
  readonly text: string;
  readonly truncated: boolean;
}

/** Characters that are cheap, wide, or expensive once escaped in JSON. */
const char = fc.constantFrom(
  'a',
  'Z',
  ' ',
  '"',
  '\\',
  '\u0000',
  '\u0001',
  '\u001f',
  '\n',
  '\u2028',
  'é',
  '数',
  '😀',
  '/',
);
const text = fc.oneof(
  fc.array(char, { maxLength: 400 }).map((chars) => chars.join('')),
  fc.string({ unit: 'binary', maxLength: 300 }).filter((s) => !hasLoneSurrogate(s)),
  fc.constantFrom('\u0001'.repeat(6_000), '"'.repeat(6_000), '😀'.repeat(1_500)),
);

function request(items: readonly Item[], hasMore: boolean, maxBytes: number) {
  return {
    items,
    hasMore,
    maxBytes,
    render: (page: readonly Item[], more: boolean) => ({
      records: page,
      next_cursor: more ? `cursor-${page.at(-1)?.seq ?? 'x'}` : null,
      cursor_expired: false,
    }),
    trim: (item: Item, bytes: number) => ({ ...item, text: truncateUtf8(item.text, bytes).text, truncated: true }),
    textBytes: (item: Item) => utf8ByteLength(item.text),
  };
}

describe('fitToBudget', () => {
  it('keeps every page within budget, a prefix in order, and never an empty page with a next cursor', () => {
    fc.assert(
      fc.property(
        fc.array(text, { maxLength: 20 }),
        fc.boolean(),
        fc.integer({ min: 400, max: 24_000 }),
        (texts, hasMore, maxBytes) => {
          const items = texts.map((t, i) => ({ seq: i, text: t, truncated: false }));
          const fitted = fitToBudget(request(items, hasMore, maxBytes));
          expect(fitted.bytes).toBe(jsonBytes(fitted.answer));
          expect(fitted.bytes).toBeLessThanOrEqual(maxBytes);
          expect(fitted.more).toBe(fitted.items.length < items.length || hasMore);
          if (items.length > 0) expect(fitted.items.length).toBeGreaterThan(0);
          fitted.items.forEach((item, i) => {
            const original = items[i] as Item;
            expect(item.seq).toBe(original.seq);
            if (item.truncated) {
              // Only the first item is ever cut, at a character boundary, to a prefix.
              expect(i).toBe(0);
              expect(original.text.startsWith(item.text)).toBe(true);
              expect(hasLoneSurrogate(item.text)).toBe(hasLoneSurrogate(original.text));
            } else {
              expect(item.text).toBe(original.text);
            }
          });
          // Maximal: the next candidate would not have fitted whole.
          if (fitted.items.length < items.length && !fitted.items[0]?.truncated) {
            const more = fitted.items.length + 1 < items.length || hasMore;
            const bigger = request(items, hasMore, maxBytes).render(items.slice(0, fitted.items.length + 1), more);
            expect(jsonBytes(bigger)).toBeGreaterThan(maxBytes);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('cuts the first item only when it alone is over, keeping as much text as fits', () => {
    const big = { seq: 1, text: '"'.repeat(6_000), truncated: false };
    const fitted = fitToBudget(request([big, { seq: 2, text: 'next', truncated: false }], false, 1_000));
    expect(fitted.items).toHaveLength(1);
    expect(fitted.items[0]?.truncated).toBe(true);
    expect(fitted.more).toBe(true);
    expect(fitted.bytes).toBeLessThanOrEqual(1_000);
    // One more quote (two escaped bytes) would not fit.
    expect(fitted.bytes).toBeGreaterThan(1_000 - 2);
  });

  it('answers an empty list with an empty page and no cursor', () => {
    const fitted = fitToBudget(request([], false, 24_000));
    expect(fitted).toMatchObject({ items: [], more: false });
    expect(fitted.answer).toEqual({ records: [], next_cursor: null, cursor_expired: false });
  });

  it('throws when even an empty answer is over the budget (a programming error)', () => {
    expect(() => fitToBudget(request([], false, 10))).toThrow(/cannot be cut/);
  });
});
