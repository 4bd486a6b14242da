import { asAgentId, asConversationId, asMemberId, asTeamId, cutUtf16, type Member } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { memberLabel } from './member-label.js';

const member = (position: number, name: string): Member => ({
  id: asMemberId(`member_${position + 1}`),
  teamId: asTeamId('team_1'),
  position,
  name,
  agentId: asAgentId('researcher'),
  conversationId: asConversationId(`conversation_${position + 1}`),
  role: null,
  isLead: false,
  retiredAt: null,
});

describe('memberLabel', () => {
  it('uses the name itself when it fits 120 UTF-16 units', () => {
    const a = member(0, 'x'.repeat(120));
    expect(memberLabel(a, [a])).toBe('x'.repeat(120));
  });

  it('cuts an 80-emoji name (160 units) to 60 emoji without splitting a surrogate pair', () => {
    const a = member(0, '😀'.repeat(80));
    const label = memberLabel(a, [a]);
    expect(label).toBe('😀'.repeat(60));
    expect(label.length).toBe(120);
  });

  it('keeps labels unique when two names only differ after the cut', () => {
    const a = member(0, `${'😀'.repeat(70)}a`);
    const b = member(1, `${'😀'.repeat(70)}b`);
    const labels = [memberLabel(a, [a, b]), memberLabel(b, [a, b])];
    expect(new Set(labels).size).toBe(2);
    for (const label of labels) expect(label.length).toBeLessThanOrEqual(120);
    expect(labels[1]?.endsWith(' #2')).toBe(true);
  });

  it('cutUtf16 keeps a CJK name of 121 units to 120', () => {
    expect(cutUtf16('中'.repeat(121), 120)).toBe('中'.repeat(120));
  });
});
