import { cutUtf16, Limits, type Member } from '@agent-teams/core';

/**
 * The mention label of a member: its name, cut to {@link Limits.mentionLabelUtf16} UTF-16 units
 * at a code-point boundary, and made unique within the roster.
 *
 * @remarks Names are at most 80 code points but up to 160 UTF-16 units (astral characters take
 * two), so a long emoji name can need cutting; two names that only differ after the cut get
 * their roster number appended (`… #2`) so labels stay unique.
 */
export function memberLabel(member: Member, roster: readonly Member[]): string {
  const label = cutUtf16(member.name, Limits.mentionLabelUtf16);
  const clash = roster.some(
    (other) => other.id !== member.id && cutUtf16(other.name, Limits.mentionLabelUtf16) === label,
  );
  if (!clash) return label;
  const suffix = ` #${member.position + 1}`;
  return cutUtf16(member.name, Limits.mentionLabelUtf16 - suffix.length) + suffix;
}
