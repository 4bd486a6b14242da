/** One page of a keyset-paginated list. `afterSeq` of the next page is the last item's seq. */
export interface SeqPage<T> {
  readonly items: readonly T[];
  readonly hasNextPage: boolean;
}

/** Keyset page request over a numeric, strictly ordered `seq`. */
export interface SeqPageRequest {
  /** Page size (already validated by the core). */
  readonly first: number;
  /** Exclusive anchor: items strictly after this seq in the list's order; null for the start. */
  readonly afterSeq: number | null;
}

/** A newest-first keyset page request (seq descending). */
export interface NewestFirstPageRequest {
  /** Page size (already validated by the core). */
  readonly limit: number;
  /** Exclusive anchor: items with a lower seq than this; null for the newest. */
  readonly beforeSeq: number | null;
}

/** A newest-first page and whether its anchor is still there. */
export interface NewestFirstPage<T> {
  readonly items: readonly T[];
  readonly hasMore: boolean;
  /**
   * False when `beforeSeq` names no retained item of the team (a record rotated out, a job
   * gone); the items are then empty. True when there was no anchor.
   */
  readonly anchorFound: boolean;
}
