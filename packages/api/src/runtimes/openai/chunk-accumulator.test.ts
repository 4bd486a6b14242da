import { describe, expect, it } from 'vitest';
import { toolCallText } from './chunk-accumulator.js';

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
