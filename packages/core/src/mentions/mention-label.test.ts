import { describe, expect, it } from 'vitest';
import { mentionLabel } from './mention-label.js';

describe('mentionLabel', () => {
  it('joins team and member names with a slash', () => {
    expect(mentionLabel('Launch', 'Writer')).toBe('Launch / Writer');
  });

  it('keeps an 80-character team with a 37-character member (120 units) and falls back at 38', () => {
    const team = 't'.repeat(80);
    expect(mentionLabel(team, 'm'.repeat(37))).toBe(`${team} / ${'m'.repeat(37)}`);
    expect(mentionLabel(team, 'm'.repeat(38))).toBe('m'.repeat(38));
  });

  it('counts UTF-16 units, so an emoji counts twice', () => {
    const team = 't'.repeat(80);
    // 80 + 3 + 18 emoji × 2 units = 119 fits; one more ASCII letter makes 120, another 121.
    expect(mentionLabel(team, `${'😀'.repeat(18)}a`)).toBe(`${team} / ${'😀'.repeat(18)}a`);
    expect(mentionLabel(team, `${'😀'.repeat(18)}ab`)).toBe(`${'😀'.repeat(18)}ab`);
  });
});
