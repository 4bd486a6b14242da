import { LEAD_ONLY_TOOLS } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { toolsFor } from './member-tools.js';
import { systemPrompt } from './turn-prompt.js';

const names = (isLead: boolean) => toolsFor(isLead).map((t) => (t.type === 'function' ? t.function.name : ''));

describe('the tools and instructions a member is offered', () => {
  it('offers the lead’s tools to the lead only', () => {
    expect(names(true)).toEqual(expect.arrayContaining([...LEAD_ONLY_TOOLS, 'wait_for_change', 'send_member']));
    expect(names(false).filter((name) => LEAD_ONLY_TOOLS.has(name))).toEqual([]);
    expect(names(false)).toEqual(expect.arrayContaining(['wait_for_change', 'send_member', 'ask_clarification']));
  });

  it('names the role in every member’s instructions and the lead’s tools in the lead’s only', () => {
    const lead = systemPrompt(null, 'Ada', 'Leads 研究', true);
    const member = systemPrompt(null, 'Bob', 'Writes', false);
    expect(lead).toContain('Your role in the team: "Leads 研究".');
    expect(lead).toContain('team_spawn');
    expect(member).toContain('Your role in the team: "Writes".');
    expect(member).not.toContain('team_spawn');
  });
});
