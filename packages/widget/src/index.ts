/**
 * The embeddable widget lands with its own issue; until then the api serves a minimal page at `/`.
 * This constant lets hosts feature-detect the placeholder.
 */
export const WIDGET_AVAILABLE = false as const;
