import { Limits } from '../limits/limits.js';

/**
 * The label of a mention target: `"<team> / <member>"`, or just the member name when that would
 * exceed `Limits.mentionLabelUtf16` (120) UTF-16 code units. Counted in UTF-16 units, not code
 * points, because that is what host editors measure their mention chips in.
 */
export function mentionLabel(teamName: string, memberName: string): string {
  const full = `${teamName} / ${memberName}`;
  return full.length <= Limits.mentionLabelUtf16 ? full : memberName;
}
