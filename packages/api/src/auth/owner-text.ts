import { hasLoneSurrogate } from '@agent-teams/core';

// biome-ignore lint/suspicious/noControlCharactersInRegex: this pattern exists to find them.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * Whether `value` can name an owner: not blank, no unpaired surrogate, no control character.
 *
 * @remarks PostgreSQL's text cannot hold U+0000 (an owner with it failed every write there as an
 * unexpected error, while SQLite stored it), an unpaired surrogate cannot be written as UTF-8, and
 * an owner id goes into logs and metrics' labels, where a line break would forge a line. Used by
 * host-signed tokens' owner claim and by the config's static tokens alike.
 */
export function isUsableOwnerText(value: string): boolean {
  return value.trim() !== '' && !hasLoneSurrogate(value) && !CONTROL_CHARACTER.test(value);
}
