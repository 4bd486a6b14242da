import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/agent-teams-config.js';
import { demoAgents } from '../../config/demo-config.js';
import { parseConfig } from '../../config/parse-config.js';
import { callCost, OpenAiDefaults, parseOpenAiSettings, reservedCost } from './openai-settings.js';

const base = { model: 'gpt-4o-mini', baseUrl: 'https://api.openai.com/v1/' };

describe('parseOpenAiSettings', () => {
  it('fills the defaults and trims the base URL', () => {
    expect(parseOpenAiSettings(base)).toEqual({
      model: 'gpt-4o-mini',
      baseUrl: 'https://api.openai.com/v1',
      apiKeyEnv: null,
      systemPrompt: null,
      temperature: null,
      maxToolRounds: OpenAiDefaults.maxToolRounds,
      stream: true,
      maxContextTokens: OpenAiDefaults.maxContextTokens,
      maxOutputTokens: 1024,
      historyTeamContext: 'latest',
      pricing: null,
    });
  });

  it('takes historyTeamContext "latest" (the default, also for null) or "every" and refuses anything else', () => {
    expect(parseOpenAiSettings({ ...base, historyTeamContext: 'every' }).historyTeamContext).toBe('every');
    expect(parseOpenAiSettings({ ...base, historyTeamContext: 'latest' }).historyTeamContext).toBe('latest');
    expect(parseOpenAiSettings({ ...base, historyTeamContext: null }).historyTeamContext).toBe('latest');
    for (const value of ['all', 'LATEST', ' every', '', true, 1, ['every']]) {
      expect(() => parseOpenAiSettings({ ...base, historyTeamContext: value })).toThrow(
        'historyTeamContext must be "latest" or "every"',
      );
    }
  });

  it('takes maxOutputTokens from 1 to 1,000,000 and refuses one past either bound', () => {
    expect(parseOpenAiSettings({ ...base, maxOutputTokens: 1 }).maxOutputTokens).toBe(1);
    expect(parseOpenAiSettings({ ...base, maxOutputTokens: 1_000_000 }).maxOutputTokens).toBe(1_000_000);
    expect(() => parseOpenAiSettings({ ...base, maxOutputTokens: 0 })).toThrow(/maxOutputTokens must be an integer/);
    expect(() => parseOpenAiSettings({ ...base, maxOutputTokens: 1_000_001 })).toThrow(/maxOutputTokens/);
  });

  it.each([
    ['ASCII', 'a'],
    ['CJK', '数'],
    ['emoji', '😀'],
    ['lone surrogates', '\ud800'],
  ])('takes a systemPrompt of 31,999 and 32,000 characters and refuses 32,001, in %s', (_label, unit) => {
    const prompt = (n: number) => ({ ...base, systemPrompt: unit.repeat(n) });
    expect(parseOpenAiSettings(prompt(31_999)).systemPrompt).toHaveLength(31_999 * unit.length);
    expect(parseOpenAiSettings(prompt(32_000)).systemPrompt).toHaveLength(32_000 * unit.length);
    expect(() => parseOpenAiSettings(prompt(32_001))).toThrow(/systemPrompt must be at most 32000 characters/);
  });

  it('computes the cost of a call from the price per million tokens', () => {
    const { pricing } = parseOpenAiSettings({ ...base, pricing: { inputPerMillion: 0.15, outputPerMillion: 0.6 } });
    expect(callCost(pricing, 2_000_000, 1_000_000)).toBeCloseTo(0.9, 12);
    expect(callCost(null, 2_000_000, 1_000_000)).toBe(0);
  });

  it('prices cached input tokens at cachedInputPerMillion, and at the input price without one', () => {
    const priced = (extra: Record<string, unknown>) =>
      parseOpenAiSettings({ ...base, pricing: { inputPerMillion: 2, outputPerMillion: 8, ...extra } }).pricing;
    const withCached = priced({ cachedInputPerMillion: 0.5 });
    expect(withCached?.cachedInputPerMillion).toBe(0.5);
    // 1,000,000 input tokens of which 800,000 cached, 100,000 output.
    expect(callCost(withCached, 1_000_000, 100_000, 800_000)).toBeCloseTo(0.4 + 0.4 + 0.8, 12);
    expect(callCost(withCached, 1_000_000, 100_000)).toBeCloseTo(2 + 0.8, 12);
    for (const without of [priced({}), priced({ cachedInputPerMillion: null })]) {
      expect(without?.cachedInputPerMillion).toBeNull();
      expect(callCost(without, 1_000_000, 100_000, 800_000)).toBeCloseTo(2 + 0.8, 12);
    }
    expect(callCost(priced({ cachedInputPerMillion: 0 }), 1_000_000, 0, 1_000_000)).toBe(0);
    expect(callCost(null, 1_000_000, 100_000, 800_000)).toBe(0);
  });

  it('reserves input at the dearer of the input and cached prices', () => {
    const priced = (cachedInputPerMillion: number | null) =>
      parseOpenAiSettings({ ...base, pricing: { inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion } })
        .pricing;
    expect(reservedCost(priced(0.5), 1_000_000, 100_000)).toBeCloseTo(2.8, 12);
    expect(reservedCost(priced(null), 1_000_000, 100_000)).toBeCloseTo(2.8, 12);
    expect(reservedCost(priced(2), 1_000_000, 100_000)).toBeCloseTo(2.8, 12);
    expect(reservedCost(priced(3), 1_000_000, 100_000)).toBeCloseTo(3.8, 12);
    expect(reservedCost(null, 1_000_000, 100_000)).toBe(0);
  });
});

describe('parseConfig with runtime "openai"', () => {
  const agent = (extra: Record<string, unknown>) => ({ agents: [{ name: 'a', runtime: 'openai', ...base, ...extra }] });

  it('accepts every documented key', () => {
    const settings = {
      apiKeyEnv: 'OPENAI_API_KEY',
      systemPrompt: 'Be brief.',
      temperature: 0.2,
      maxToolRounds: 4,
      stream: false,
      maxContextTokens: 8_000,
      pricing: { inputPerMillion: 1, outputPerMillion: 2, cachedInputPerMillion: 0.25 },
    };
    expect(parseConfig(agent(settings), 'c.json').agents[0]?.settings).toEqual({ ...base, ...settings });
  });

  it.each([
    [{ model: undefined }, /agents\[0\]\.model/],
    [{ baseUrl: 'api.openai.com/v1' }, /agents\[0\]\.baseUrl/],
    [{ baseUrl: 'ftp://x/v1' }, /agents\[0\]\.baseUrl/],
    [{ apiKeyEnv: 'not a name' }, /agents\[0\]\.apiKeyEnv/],
    [{ temperature: 3 }, /agents\[0\]\.temperature/],
    [{ maxToolRounds: -1 }, /agents\[0\]\.maxToolRounds/],
    [{ maxToolRounds: 2.5 }, /agents\[0\]\.maxToolRounds/],
    [{ stream: 'yes' }, /agents\[0\]\.stream/],
    [{ pricing: { inputPerMillion: -1, outputPerMillion: 1 } }, /agents\[0\]\.pricing\.inputPerMillion/],
    [{ pricing: { inputPerMillion: 1 } }, /agents\[0\]\.pricing\.outputPerMillion/],
    [{ pricing: { inputPerMillion: 1, outputPerMillion: 1, currency: 'EUR' } }, /agents\[0\]\.pricing\.currency/],
    [
      { pricing: { inputPerMillion: 1, outputPerMillion: 1, cachedInputPerMillion: -0.1 } },
      /agents\[0\]\.pricing\.cachedInputPerMillion: pricing\.cachedInputPerMillion must be a number ≥ 0/,
    ],
    [
      { pricing: { inputPerMillion: 1, outputPerMillion: 1, cachedInputPerMillion: '0.5' } },
      /agents\[0\]\.pricing\.cachedInputPerMillion: pricing\.cachedInputPerMillion must be a number ≥ 0/,
    ],
    [
      { pricing: { inputPerMillion: 1, outputPerMillion: 1, cachedInputPerMillion: Number.POSITIVE_INFINITY } },
      /agents\[0\]\.pricing\.cachedInputPerMillion/,
    ],
    [
      { pricing: { inputPerMillion: 1, outputPerMillion: 1, cachedPerMillion: 0.5 } },
      /pricing\.cachedPerMillion is not/,
    ],
  ])('refuses %j naming the key', (extra, message) => {
    expect(() => parseConfig(agent(extra), 'c.json')).toThrow(ConfigError);
    expect(() => parseConfig(agent(extra), 'c.json')).toThrow(message);
  });
});

describe('demoAgents', () => {
  it('keeps the scripted demo by default', () => {
    expect(demoAgents({}).map((a) => a.runtime)).toEqual(['scripted', 'scripted', 'scripted']);
  });

  it('switches the demo agents to a real provider with one variable, with overridable defaults', () => {
    const openai = demoAgents({ AGENT_TEAMS_DEMO_PROVIDER: 'openai' });
    expect(openai.map((a) => a.runtime)).toEqual(['openai', 'openai', 'openai']);
    expect(openai[0]?.settings).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-4o-mini',
      apiKeyEnv: 'OPENAI_API_KEY',
    });
    for (const agent of openai) expect(() => parseOpenAiSettings(agent.settings)).not.toThrow();
    const ollama = demoAgents({
      AGENT_TEAMS_DEMO_PROVIDER: 'openai',
      AGENT_TEAMS_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      AGENT_TEAMS_OPENAI_MODEL: 'llama3.1',
    });
    expect(ollama[1]?.settings).toMatchObject({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1' });
    expect(() => demoAgents({ AGENT_TEAMS_DEMO_PROVIDER: 'magic' })).toThrow(ConfigError);
  });
});
