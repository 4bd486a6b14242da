import { describe, expect, it } from 'vitest';
import { ChunkAccumulator, toolCallText } from './chunk-accumulator.js';

describe('toolCallText', () => {
  it('keeps text as it came, in any script, lone surrogates included', () => {
    for (const text of ['', 'call_1', '{"q":"数据"}', '😀', '\ud800x']) expect(toolCallText(text)).toBe(text);
  });

  it('stores what OpenAI would have sent as text: numbers as their digits, objects as their JSON', () => {
    expect(toolCallText(7)).toBe('7');
    expect(toolCallText(true)).toBe('true');
    expect(toolCallText({ scope: '数据 😀' })).toBe('{"scope":"数据 😀"}');
    expect(toolCallText([1, 'a'])).toBe('[1,"a"]');
    expect(toolCallText(null)).toBe('');
    expect(toolCallText(undefined)).toBe('');
  });
});

describe('ChunkAccumulator.soFar', () => {
  it("counts the UTF-8 bytes of the text and every call's arguments received, with the latest usage report", () => {
    const accumulator = new ChunkAccumulator('p', { text: () => undefined, tool: () => undefined });
    expect(accumulator.soFar()).toEqual({ outputBytes: 0, usage: null });
    const call = (index: number, args: string) => ({ index, function: { name: 'task_list', arguments: args } });
    accumulator.push({ choices: [{ index: 0, delta: { content: 'données' }, finish_reason: null }] } as never);
    accumulator.push({ choices: [{ index: 0, delta: { tool_calls: [call(0, '{"a":'), call(1, '{}')] } }] } as never);
    accumulator.push({ choices: [{ index: 0, delta: { tool_calls: [call(0, '"😀"}')] } }] } as never);
    // 8 bytes of text ("é" is 2), 5 + 7 of the first call's arguments ("😀" is 4), 2 of the second's.
    expect(accumulator.soFar()).toEqual({ outputBytes: 22, usage: null });
    accumulator.push({ choices: [], usage: { prompt_tokens: 40, completion_tokens: 6 } } as never);
    expect(accumulator.soFar().usage).toEqual({ inputTokens: 40, cachedInputTokens: 0, outputTokens: 6 });
  });
});
