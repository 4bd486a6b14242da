import type { ConversationId, JobId, TeamId } from './ids.js';

/** Token usage and cost of one answered model call, as a runtime records it. */
export interface UsageEntry {
  /** Unique per model call (recording the same id twice records it once). */
  readonly id: string;
  readonly teamId: TeamId;
  /** The job whose turn made the call. */
  readonly jobId: JobId;
  /** The member conversation the turn ran in. */
  readonly conversationId: ConversationId;
  readonly model: string;
  readonly inputTokens: number;
  /**
   * Of `inputTokens`, those the provider read from its prompt cache (OpenAI's
   * `usage.prompt_tokens_details.cached_tokens`); absent or 0 when it reported none.
   */
  readonly cachedInputTokens?: number;
  readonly outputTokens: number;
  /**
   * `(inputTokens − cachedInputTokens) × inputPerMillion / 1e6 + cachedInputTokens ×
   * cachedInputPerMillion / 1e6 + outputTokens × outputPerMillion / 1e6` (cached tokens at the
   * input price when no cached price is set); 0 without pricing.
   */
  readonly cost: number;
}

/**
 * What usage is summed over: one job's own turns, a handoff chain (every job with that root),
 * a member (its conversation, receipts it ran included) or a team.
 */
export type UsageScope =
  | { readonly kind: 'job'; readonly id: JobId }
  | { readonly kind: 'chain'; readonly id: JobId }
  | { readonly kind: 'conversation'; readonly id: ConversationId }
  | { readonly kind: 'team'; readonly id: TeamId };

/** Summed usage of a scope. */
export interface UsageTotals {
  readonly inputTokens: number;
  /** Of `inputTokens`, those read from the provider's prompt cache. */
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly cost: number;
  /** Number of model calls summed. */
  readonly calls: number;
}

/** Usage of a scope with no recorded call. */
export const NO_USAGE: UsageTotals = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, cost: 0, calls: 0 };

/** The map key of a scope in {@link import('../ports/team-store.js').TeamStore.usageTotals}'s answer. */
export function usageScopeKey(scope: UsageScope): string {
  return `${scope.kind}:${scope.id}`;
}

/** Adds one entry to totals. */
export function addUsage(
  totals: UsageTotals,
  entry: Pick<UsageEntry, 'inputTokens' | 'cachedInputTokens' | 'outputTokens' | 'cost'>,
): UsageTotals {
  return {
    inputTokens: totals.inputTokens + entry.inputTokens,
    cachedInputTokens: totals.cachedInputTokens + (entry.cachedInputTokens ?? 0),
    outputTokens: totals.outputTokens + entry.outputTokens,
    cost: totals.cost + entry.cost,
    calls: totals.calls + 1,
  };
}
