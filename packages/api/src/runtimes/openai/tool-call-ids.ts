import { createHash } from 'node:crypto';

/**
 * The longest tool-call id OpenAI accepts (`tool_calls[].id` of an assistant message, and the
 * `tool_call_id` that answers it): a longer one fails the next model call with a 400.
 */
export const TOOL_CALL_ID_MAX_CHARS = 40;

/** Characters of the run's hash in a fallback id: 96 bits, so two runs of a conversation never share a prefix. */
export const RUN_HASH_CHARS = 16;

/**
 * The prefix of the ids given to the tool calls of step `step` of run `runId` that a provider
 * sent without an id: `call_<hash of the run>_<step>`; the call's index follows (`_<index>`).
 *
 * @remarks Why a hash: a run id holds its job id (`orun_job_<26 characters>`, longer for a woken
 * wait's run), and `call_<run id>_<step>_<index>` passed the 40 characters OpenAI allows, so a
 * conversation that later moved to OpenAI would fail on its own history. The same run and step
 * give the same prefix, as before: a step that runs again after a crash names its calls alike.
 */
export function fallbackToolCallPrefix(runId: string, step: number): string {
  const hash = createHash('sha256').update(runId, 'utf8').digest('base64url').slice(0, RUN_HASH_CHARS);
  return `call_${hash}_${step}`;
}
