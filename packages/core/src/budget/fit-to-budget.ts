import { utf8ByteLength } from '../text/text-measure.js';

/** What {@link fitToBudget} fits: candidate items, how to render an answer, how to cut an item. */
export interface BudgetRequest<T> {
  /** Candidates in page order; each already within its own field limits. */
  readonly items: readonly T[];
  /** True when the source holds more matching items after the candidates. */
  readonly hasMore: boolean;
  /** Budget of the whole answer: UTF-8 bytes of its JSON text, escaping included. */
  readonly maxBytes: number;
  /** The answer for a prefix of the candidates; `more` says whether a next cursor is due. */
  readonly render: (items: readonly T[], more: boolean) => unknown;
  /**
   * The item with its cuttable text reduced to at most `maxTextBytes` UTF-8 bytes (cut at a
   * character boundary and marked truncated). Only used on the first item, when it alone is over.
   */
  readonly trim: (item: T, maxTextBytes: number) => T;
  /** UTF-8 length of the item's cuttable text (the upper bound of the trim search). */
  readonly textBytes: (item: T) => number;
}

/** The fitted answer. */
export interface BudgetedAnswer<T> {
  /** The prefix kept (its first item possibly trimmed). */
  readonly items: readonly T[];
  /** True when a next page is due (items were left out or the source has more). */
  readonly more: boolean;
  /** The rendered answer, within the budget. */
  readonly answer: unknown;
  /** Its measured size. */
  readonly bytes: number;
}

/** UTF-8 bytes of the JSON text of `value`, exactly as it is sent (escaping included). */
export function jsonBytes(value: unknown): number {
  return utf8ByteLength(JSON.stringify(value) ?? 'null');
}

/**
 * Keeps the longest prefix of the candidates whose rendered answer fits `maxBytes`.
 *
 * @remarks Measures the real JSON output (escaping of quotes, backslashes and control characters
 * included), so the bound holds for any text. It always makes progress: when even the first
 * candidate alone is over the budget it cuts that item's text (binary search on the cut, at a
 * character boundary) instead of returning an empty page with a next cursor. A per-item size
 * estimate picks the prefix and one exact measurement confirms it, so a page costs a few
 * `JSON.stringify` calls rather than one per prefix.
 * @throws Error when an answer with no items, or with the first item cut to nothing, is still over
 * the budget: a programming error (fixed fields are bounded far below any budget used).
 */
export function fitToBudget<T>(request: BudgetRequest<T>): BudgetedAnswer<T> {
  const { items, hasMore, maxBytes, render } = request;
  const measure = (count: number, list: readonly T[] = items.slice(0, count)): BudgetedAnswer<T> => {
    const more = count < items.length || hasMore;
    const answer = render(list, more);
    return { items: list, more, answer, bytes: jsonBytes(answer) };
  };
  let count = estimateCount(request);
  let best = measure(count);
  while (best.bytes > maxBytes && count > 0) {
    count -= 1;
    best = measure(count);
  }
  // The estimate may be a little cautious (cursor lengths differ): take what still fits.
  while (count < items.length) {
    const next = measure(count + 1);
    if (next.bytes > maxBytes) break;
    count += 1;
    best = next;
  }
  if (count > 0 || items.length === 0) return assertWithin(best, maxBytes);
  return trimFirst(request);
}

/** Largest prefix whose estimated size fits: an empty answer plus each item's own share. */
function estimateCount<T>({ items, maxBytes, render }: BudgetRequest<T>): number {
  if (items.length === 0) return 0;
  const empty = jsonBytes(render([], true));
  let total = empty;
  let count = 0;
  for (const item of items) {
    // One item's share: its rendered size minus the empty envelope, plus a separating comma.
    const share = jsonBytes(render([item], true)) - empty + (count > 0 ? 1 : 0);
    if (total + share > maxBytes) break;
    total += share;
    count += 1;
  }
  return count;
}

/** The first item alone, its text cut to the longest length that fits. */
function trimFirst<T>(request: BudgetRequest<T>): BudgetedAnswer<T> {
  const first = request.items[0] as T;
  // The cut item is kept whole in the page; what follows it (if anything) is the next page.
  const more = request.items.length > 1 || request.hasMore;
  const answerWith = (textBytes: number) => {
    const item = request.trim(first, textBytes);
    const answer = request.render([item], more);
    return { items: [item], more, answer, bytes: jsonBytes(answer) };
  };
  let low = 0;
  let high = request.textBytes(first);
  let best = answerWith(0);
  assertWithin(best, request.maxBytes);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    const candidate = answerWith(mid);
    if (candidate.bytes <= request.maxBytes) {
      low = mid;
      best = candidate;
    } else {
      high = mid - 1;
    }
  }
  return best;
}

function assertWithin<T>(answer: BudgetedAnswer<T>, maxBytes: number): BudgetedAnswer<T> {
  if (answer.bytes > maxBytes) {
    throw new Error(`[agent-teams/core] an answer of ${answer.bytes} bytes cannot be cut below ${maxBytes}`);
  }
  return answer;
}
