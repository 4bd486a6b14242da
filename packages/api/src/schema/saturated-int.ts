/** GraphQL's largest `Int` (2³¹ − 1). */
export const MAX_GRAPHQL_INT = 2_147_483_647;

/** What a sum field answers as `Int`: the sum, or {@link MAX_GRAPHQL_INT} past it. */
export function saturatedInt(value: number): number {
  return Math.min(value, MAX_GRAPHQL_INT);
}

/** The sentence a saturating field's description ends with. */
export const SATURATES = 'At most 2147483647 (a larger sum reads as that).';
