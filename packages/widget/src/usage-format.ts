import type { Strings } from './i18n.js';
import type { UsageView } from './team-feed.js';

/**
 * A cost in the agents' configured currency (the API does not name it): cents-like precision from
 * 1 up, two significant digits below, so 0.000012 still reads as more than nothing.
 */
export function formatCost(cost: number, lang: string): string {
  const options: Intl.NumberFormatOptions = cost >= 1 ? { maximumFractionDigits: 2 } : { maximumSignificantDigits: 2 };
  return new Intl.NumberFormat(lang, options).format(cost);
}

/**
 * "1,234 tokens · cost 0.0021", and its breakdown "1,000 in · 234 out · 2 model calls" ("1,000 in
 * (800 cached) · …" when the provider read part of the input from its prompt cache).
 */
export function formatUsage(usage: UsageView, lang: string, t: Strings): { line: string; detail: string } {
  const count = (n: number) => new Intl.NumberFormat(lang).format(n);
  return {
    line: t.usage.line(count(usage.inputTokens + usage.outputTokens), formatCost(usage.cost, lang)),
    detail: t.usage.detail(
      count(usage.inputTokens),
      usage.cachedInputTokens > 0 ? count(usage.cachedInputTokens) : null,
      count(usage.outputTokens),
      count(usage.calls),
    ),
  };
}
