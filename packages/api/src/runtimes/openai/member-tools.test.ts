import {
  DomainError,
  ErrorCode,
  LEAD_ONLY_TOOLS,
  MEMBER_TOOL_SPECS,
  type MemberToolPort,
  TASK_TOOL_NAMES,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { executeMemberTool, MEMBER_TOOLS, toolsFor } from './member-tools.js';
import { systemPrompt } from './turn-prompt.js';

const names = (isLead: boolean) => toolsFor(isLead).map((t) => (t.type === 'function' ? t.function.name : ''));

const refusing = (error: unknown): MemberToolPort => ({
  invoke: async () => {
    throw error;
  },
});

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

  it('writes the tools and instructions it sends with every model call in ASCII only', () => {
    // One character outside Latin-1 (an en dash in a tool description did) makes V8 hold the
    // whole request body, the conversation included, as a two-byte string: encoding it for the
    // wire then cost about 0.4 ms per call (docs/benchmarks.md, turn overhead, tenth pass).
    const ascii = /^[\x20-\x7e\n]*$/;
    for (const isLead of [true, false]) {
      for (const tool of toolsFor(isLead)) expect(JSON.stringify(tool)).toMatch(ascii);
      expect(systemPrompt(null, 'Ada', 'Writes', isLead)).toMatch(ascii);
    }
  });
});

describe('the idempotency keys the runtime supplies', () => {
  const properties = (name: string) => {
    const tool = toolsFor(true).find((t) => t.type === 'function' && t.function.name === name);
    return Object.keys((tool?.type === 'function' ? tool.function.parameters?.properties : null) ?? {});
  };

  it('leaves them out of what the model is offered, while the registry (and so MCP) keeps them', () => {
    const keyed = MEMBER_TOOL_SPECS.filter((spec) => 'request_id' in spec.inputSchema.properties);
    expect(keyed.map((spec) => spec.name)).toEqual(
      expect.arrayContaining(['send_member', 'team_interrupt', 'task_create', 'task_claim', 'task_complete']),
    );
    for (const spec of keyed) expect(properties(spec.name)).not.toContain('request_id');
    expect(properties('team_message')).not.toContain('message_id');
    // What the model does choose stays: the task to claim, the revision it read.
    expect(properties('task_claim')).toEqual(['task_id', 'expected_revision']);
  });

  it('never names a key it leaves out in what the model reads', () => {
    for (const tool of toolsFor(true)) {
      if (tool.type !== 'function') continue;
      const offered = Object.keys(tool.function.parameters?.properties ?? {});
      const text = JSON.stringify(tool.function);
      for (const key of ['request_id', 'message_id']) if (!offered.includes(key)) expect(text).not.toContain(key);
    }
  });
});

describe('openai member tools', () => {
  it('offers every task board tool with its argument schema (arrays typed by their items)', () => {
    const offered = new Map(MEMBER_TOOLS.map((t) => [t.type === 'function' ? t.function.name : '', t]));
    for (const name of TASK_TOOL_NAMES) expect(offered.has(name)).toBe(true);
    const create = offered.get('task_create');
    const parameters = create?.type === 'function' ? create.function.parameters : undefined;
    expect(parameters).toMatchObject({
      required: ['title'],
      additionalProperties: false,
      properties: { depends_on: { type: 'array', items: { type: 'string' } }, write_scope: { type: 'array' } },
    });
  });

  it('answers a stale task write with current_revision for the model to retry from', async () => {
    const stale = new DomainError(ErrorCode.TASK_STALE_REVISION, 'stale', { currentRevision: 4 });
    const call = { id: 'c1', name: 'task_claim', arguments: '{"task_id":"task_1","expected_revision":3}' };
    expect(JSON.parse(await executeMemberTool(call, refusing(stale), 'run'))).toEqual({
      error: { code: 'TASK_STALE_REVISION', message: 'stale', current_revision: 4 },
    });
    const blocked = new DomainError(ErrorCode.TASK_BLOCKED, 'blocked', { blockedBy: 'task_1,task_2' });
    expect(JSON.parse(await executeMemberTool(call, refusing(blocked), 'run'))).toEqual({
      error: { code: 'TASK_BLOCKED', message: 'blocked', blocked_by: ['task_1', 'task_2'] },
    });
  });
});
