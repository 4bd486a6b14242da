import type { TurnInput } from '@agent-teams/core';

/** How many of the inputs this process froze last are kept with their JSON text (see {@link readInput}). */
export const FROZEN_INPUTS_KEPT = 32;
/** The inputs this process froze last, by job id, oldest first, each with the text it stored. */
const frozenInputs = new Map<string, { readonly json: string; readonly input: TurnInput }>();

/** Keeps an input this process froze, with the text it stored (see {@link readInput}). */
export function keepFrozenInput(jobId: string, json: string, input: TurnInput): void {
  frozenInputs.delete(jobId);
  frozenInputs.set(jobId, { json, input });
  if (frozenInputs.size > FROZEN_INPUTS_KEPT) frozenInputs.delete(frozenInputs.keys().next().value as string);
}

/**
 * A job's frozen input from its stored text. The job's next write reads its row again (the
 * completion, a step later); with a full team context the input is about 24 KB of JSON, about
 * 40 µs to parse, so an input this process froze is given back as it froze it, when the stored
 * text is that very text. The text decides, never the id alone: another server or a restart may
 * have frozen it again, and a freeze whose transaction rolled back stored nothing.
 */
export function readInput(jobId: string, text: string | null): TurnInput | null {
  if (text === null) return null;
  const kept = frozenInputs.get(jobId);
  if (kept !== undefined && kept.json === text) return kept.input;
  return JSON.parse(text) as TurnInput;
}
