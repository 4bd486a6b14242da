import { decodeCursor, encodeCursor, pageSize } from '../pagination/cursor.js';
import type { SeqPage, SeqPageRequest } from '../ports/team-store.js';
import type { Connection, PageArgs } from './core-types.js';

/**
 * What a cursor is bound to: the list it pages (`kind`) and, where the list is filtered, the
 * hash of its filter, so a cursor reused with other filters is refused (CURSOR_MISMATCH).
 */
export interface CursorScope {
  readonly kind: string;
  readonly filter?: string;
}

/** Page size bounds of one list: the default when `first` is absent and the largest allowed. */
export interface PageBounds {
  readonly defaultSize: number;
  readonly maxSize: number;
}

/**
 * Turns client page arguments into a keyset request: validates `first` against the bounds and
 * decodes `after` within the scope.
 * @throws DomainError INVALID_INPUT for a bad `first`, CURSOR_MISMATCH or INVALID_INPUT for a bad cursor.
 */
export function seqPageRequest(args: PageArgs, scope: CursorScope, bounds: PageBounds): SeqPageRequest {
  const first = pageSize(args.first ?? undefined, bounds.defaultSize, bounds.maxSize);
  const after = args.after ?? null;
  const afterSeq = after === null ? null : decodeCursor(after, scope.kind, scope.filter);
  return { first, afterSeq };
}

/** Builds a Relay connection from a store page; each cursor encodes the item's seq in the scope. */
export function toConnection<T>(page: SeqPage<T>, seqOf: (item: T) => number, scope: CursorScope): Connection<T> {
  const edges = page.items.map((node) => ({ cursor: cursorOf(seqOf(node), scope), node }));
  return { edges, pageInfo: { hasNextPage: page.hasNextPage, endCursor: edges.at(-1)?.cursor ?? null } };
}

/** Like {@link toConnection}, for lists that report their filtered total. */
export function toCountedConnection<T>(
  page: SeqPage<T> & { readonly totalCount: number },
  seqOf: (item: T) => number,
  scope: CursorScope,
): Connection<T> & { totalCount: number } {
  // Not a literal that begins with a spread (see `UNADMITTED`): once per page.
  return Object.assign({}, toConnection(page, seqOf, scope), { totalCount: page.totalCount });
}

function cursorOf(seq: number, scope: CursorScope): string {
  return encodeCursor({ ...scope, seq });
}
