import { describe, expect, it } from 'vitest';
import { ENGLISH, loadStrings } from './i18n.js';
import { formatCost, formatUsage } from './usage-format.js';

describe('usage formats', () => {
  it('keeps small costs readable and large ones to cents', () => {
    expect(['0', '0.000012', '0.00128', '0.5', '12.345', '1234.5'].map((c) => formatCost(Number(c), 'en'))).toEqual([
      '0',
      '0.000012',
      '0.0013',
      '0.5',
      '12.35',
      '1,234.5',
    ]);
  });

  it('sums tokens in the line and breaks them down in the detail', () => {
    const usage = { inputTokens: 12_000, cachedInputTokens: 0, outputTokens: 345, cost: 0.0321, calls: 3 };
    expect(formatUsage(usage, 'en', ENGLISH)).toEqual({
      line: '12,345 tokens · cost 0.032',
      detail: '12,000 in · 345 out · 3 model calls',
    });
  });

  it("names the input's cached part when the provider read some from its prompt cache, in both languages", async () => {
    const usage = { inputTokens: 12_000, cachedInputTokens: 9_600, outputTokens: 345, cost: 0.0321, calls: 3 };
    expect(formatUsage(usage, 'en', ENGLISH)).toEqual({
      line: '12,345 tokens · cost 0.032',
      detail: '12,000 in (9,600 cached) · 345 out · 3 model calls',
    });
    const zh = await loadStrings('zh');
    expect(formatUsage(usage, 'zh', zh).detail).toBe('输入 12,000（缓存 9,600） · 输出 345 · 3 次模型调用');
  });
});
