import type { TurnInput } from '@agent-teams/core';
import { readStoredJson } from './stored-json.js';

/** How many of the inputs this process froze last are kept with their JSON text (see {@link readInput}). */
export const FROZEN_INPUTS_KEPT = 32;

/**
 * The longest JSON text of an input kept (UTF-16 units). A full team context and a long request
 * are about 35,000; a mailbox of long team messages can make an input far longer, and such a rare
 * one is parsed again rather than held: the kept inputs stay within about 8 MB (text and object).
 */
export const FROZEN_INPUT_MAX_CHARS = 65_536;

/** The inputs this process froze last, by job id, oldest first, each with the text it stored. */
const frozenInputs = new Map<string, { readonly json: string; readonly input: TurnInput }>();

/** Freezes `value` and every object and array it holds (a frozen input is plain JSON data). */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

/**
 * Keeps an input this process froze, with the text it stored (see {@link readInput}), and
 * freezes it: the jobs of a team frozen together share one context object and every read of the
 * kept input gets the same object, so a runtime that changed what it was given (a host's own
 * runtime) must not reach what later reads see. It throws in strict mode instead.
 */
export function keepFrozenInput(jobId: string, json: string, input: TurnInput): void {
  deepFreeze(input);
  frozenInputs.delete(jobId);
  if (json.length > FROZEN_INPUT_MAX_CHARS) return;
  frozenInputs.set(jobId, { json, input });
  if (frozenInputs.size > FROZEN_INPUTS_KEPT) frozenInputs.delete(frozenInputs.keys().next().value as string);
}

/**
 * A job's frozen input from its stored text. The job's next write reads its row again (the
 * completion, a step later); with a full team context the input is about 24 KB of JSON, about
 * 40 µs to parse, so an input this process froze is given back as it froze it, when the stored
 * text is that very text. The text decides, never the id alone: another server or a restart may
 * have frozen it again, and a freeze whose transaction rolled back stored nothing. Text that no
 * longer parses reads as null: the job then fails with STATE_LOST where it needs its input.
 */
export function readInput(jobId: string, text: string | null): TurnInput | null {
  if (text === null) return null;
  const kept = frozenInputs.get(jobId);
  if (kept !== undefined && kept.json === text) return kept.input;
  return readStoredJson<TurnInput>({ table: 'jobs', column: 'input_json', id: jobId }, text);
}
