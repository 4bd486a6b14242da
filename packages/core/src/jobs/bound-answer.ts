import { Limits, TRUNCATION_NOTICE } from '../limits/limits.js';
import type { JobResult } from '../model/job.js';
import { truncateUtf8 } from '../text/text-measure.js';

/**
 * The answer kept on a job: at most `Limits.answerBytes` (6,000) UTF-8 bytes, cut at a character
 * boundary, with {@link TRUNCATION_NOTICE} appended when something was cut. The full answer stays
 * in the member's conversation, which the notice points to.
 */
export function boundAnswer(text: string): JobResult {
  const cut = truncateUtf8(text, Limits.answerBytes);
  return cut.truncated ? { text: cut.text + TRUNCATION_NOTICE, truncated: true } : { text, truncated: false };
}
