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

/**
 * A stored tool-call id as a model request carries it: unchanged up to
 * {@link TOOL_CALL_ID_MAX_CHARS}, else `call_` and a hash of it. The same mapping serves the
 * assistant's `tool_calls[].id` and the answering `tool_call_id`, so the pair still matches.
 *
 * @remarks For the ids stored before fallback ids were hashed (44 characters and more), and for a
 * provider that issues longer ids than OpenAI takes back: a conversation keeps working when its
 * member moves to OpenAI. The stored id is never changed (the member tools' idempotency keys hold it).
 */
export function wireToolCallId(id: string): string {
  if (id.length <= TOOL_CALL_ID_MAX_CHARS) return id;
  return `call_${createHash('sha256').update(id, 'utf8').digest('base64url').slice(0, WIRE_HASH_CHARS)}`;
}

/** Characters of the hash in a mapped id: `call_` and 32 characters (192 bits) stay within the limit. */
const WIRE_HASH_CHARS = 32;

/**
 * The ids of the tool calls already made in `messages` (a conversation's history and the run's
 * own steps): the ids a new answer's calls must not take again.
 */
export function takenToolCallIds(
  ...messages: readonly (readonly { toolCalls: readonly { id: string }[] | null }[])[]
): Set<string> {
  const taken = new Set<string>();
  for (const list of messages)
    for (const message of list) for (const call of message.toolCalls ?? []) taken.add(call.id);
  return taken;
}

/**
 * A model answer's tool calls with each id distinct from `taken` and from the answer's other
 * calls: a repeated id becomes the fallback `<idPrefix>_<index>` (and `_<n>` after it, should a
 * provider have sent that too).
 *
 * @remarks Why: a call's id keys what it does — the idempotency key of `team_message`,
 * `send_member`, `team_broadcast` and `team_spawn` (`<run key>:<call id>`), and which calls a
 * replayed step has answered. A provider that numbers its calls `call_0` in every answer made
 * the second round's message an `IDEMPOTENCY_CONFLICT` (or a silent replay of the first), and a
 * replay took a second call of an answer as answered by the first one's result.
 */
export function distinctToolCallIds<T extends { readonly id: string }>(
  calls: readonly T[],
  taken: ReadonlySet<string>,
  idPrefix: string,
): T[] {
  const used = new Set(taken);
  return calls.map((call, index) => {
    let id = call.id;
    for (let n = 0; used.has(id); n += 1) id = n === 0 ? `${idPrefix}_${index}` : `${idPrefix}_${index}_${n}`;
    used.add(id);
    return id === call.id ? call : { ...call, id };
  });
}
