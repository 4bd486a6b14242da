import { describe, expect, it } from 'vitest';
import type { ModelAnswer } from './chunk-accumulator.js';
import { cutNotice, judgeFinish } from './finish-reasons.js';

const answer = (finishReason: string, content: string, calls = 0): ModelAnswer => ({
  content,
  toolCalls: Array.from({ length: calls }, (_, index) => ({
    id: `c${index}`,
    name: 'read_team_context',
    arguments: '{',
  })),
  finishReason,
  usage: null,
});

describe('judgeFinish', () => {
  it('keeps whole answers as they came', () => {
    expect(judgeFinish(answer('stop', 'Done.'), false, 10)).toEqual({ content: 'Done.', error: null });
    expect(judgeFinish(answer('tool_calls', '', 1), true, 10)).toEqual({ content: '', error: null });
  });

  it('marks a cut text, and keeps it when its calls are not run (past maxToolRounds)', () => {
    expect(judgeFinish(answer('length', 'Half'), false, 10)).toEqual({ content: `Half${cutNotice(10)}`, error: null });
    expect(judgeFinish(answer('length', 'Half', 1), false, 10)).toEqual({
      content: `Half${cutNotice(10)}`,
      error: null,
    });
  });

  it('refuses cut calls, an answer cut before any text and a filtered answer', () => {
    expect(judgeFinish(answer('length', 'Half', 1), true, 10).error).toMatch(/calls were not run/);
    expect(judgeFinish(answer('length', '  '), false, 10).error).toMatch(/before it wrote any answer/);
    expect(judgeFinish(answer('content_filter', 'Half'), false, 10).error).toMatch(/content filter/);
  });
});
