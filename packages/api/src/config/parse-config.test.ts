import { describe, expect, it } from 'vitest';
import { ConfigError } from './agent-teams-config.js';
import { parseConfig } from './parse-config.js';

const agent = (extra: Record<string, unknown> = {}) => ({
  name: 'researcher',
  title: 'Research',
  description: 'Find evidence',
  runtime: 'scripted',
  ...extra,
});

describe('parseConfig', () => {
  it('reads tokens and agents with the default turn deadline', () => {
    const config = parseConfig({ auth: { tokens: { 'tok-alice': 'alice' } }, agents: [agent()] }, 'c.json');
    expect(config.tokens.get('tok-alice')).toBe('alice');
    expect(config.agents).toEqual([
      {
        id: 'researcher',
        name: 'researcher',
        title: 'Research',
        description: 'Find evidence',
        runtime: 'scripted',
        timeoutMs: 180000,
        settings: {},
      },
    ]);
  });

  it('keeps the openai runtime settings and refuses keys no runtime knows', () => {
    const config = parseConfig(
      { agents: [agent({ runtime: 'openai', model: 'gpt', baseUrl: 'http://x/v1' })] },
      'c.json',
    );
    expect(config.agents[0]?.settings).toEqual({ model: 'gpt', baseUrl: 'http://x/v1' });
    expect(() => parseConfig({ agents: [agent({ model: 'gpt' })] }, 'c.json')).toThrow(/agents\[0\]\.model/);
  });

  it('keeps the a2a runtime settings with its own timeout, and names a bad url or key variable', () => {
    const remote = { runtime: 'a2a', url: 'https://agents.example/analyst', apiKeyEnv: 'ANALYST_KEY', timeoutMs: 5000 };
    const config = parseConfig({ agents: [agent(remote)] }, 'c.json');
    expect(config.agents[0]).toMatchObject({
      runtime: 'a2a',
      timeoutMs: 5000,
      settings: { url: 'https://agents.example/analyst', apiKeyEnv: 'ANALYST_KEY' },
    });
    expect(() => parseConfig({ agents: [agent({ runtime: 'a2a' })] }, 'c.json')).toThrow(/agents\[0\]\.url/);
    expect(() => parseConfig({ agents: [agent({ ...remote, url: 'ftp://x' })] }, 'c.json')).toThrow(/agents\[0\]\.url/);
    expect(() => parseConfig({ agents: [agent({ ...remote, apiKeyEnv: 'a-b' })] }, 'c.json')).toThrow(
      /agents\[0\]\.apiKeyEnv/,
    );
    expect(() => parseConfig({ agents: [agent({ ...remote, model: 'gpt' })] }, 'c.json')).toThrow(/agents\[0\]\.model/);
  });

  it('reads the rate limit and the body limit when the file sets them', () => {
    const config = parseConfig(
      { agents: [agent()], rateLimit: { perSecond: 2.5, burst: 20 }, http: { maxBodyBytes: 4096 } },
      'c.json',
    );
    expect(config.rateLimit).toEqual({ perSecond: 2.5, burst: 20 });
    expect(config.maxBodyBytes).toBe(4096);
    expect(parseConfig({ agents: [agent()] }, 'c.json').rateLimit).toBeUndefined();
  });

  it.each([
    [{ agents: [] }, /agents must be a non-empty array/],
    [{ agents: [agent()], rateLimit: { perSecond: 1 } }, /rateLimit\.burst/],
    [{ agents: [agent()], rateLimit: { perSecond: 0, burst: 1 } }, /rateLimit\.perSecond/],
    [{ agents: [agent()], rateLimit: { perSecond: 1, burst: 2, extra: 1 } }, /rateLimit\.extra/],
    [{ agents: [agent()], rateLimit: 'fast' }, /rateLimit must be an object/],
    [{ agents: [agent()], http: { maxBodyBytes: 10 } }, /http\.maxBodyBytes/],
    [{ agents: [agent()], http: { maxBodyBytes: 2048.5 } }, /http\.maxBodyBytes/],
    [{ agents: [agent()], http: { gzip: true } }, /http\.gzip/],
    [{ agents: [agent(), agent()] }, /used twice/],
    [{ agents: [agent({ name: 'Bad Name' })] }, /agents\[0\]\.name/],
    [{ agents: [agent({ runtime: 'magic' })] }, /agents\[0\]\.runtime/],
    [{ agents: [agent({ timeoutMs: 0 })] }, /timeoutMs/],
    [{ agents: [agent({ timeoutMs: 1.5 })] }, /timeoutMs/],
    [{ agents: [agent()], extra: 1 }, /unknown top-level key "extra"/],
    [{ auth: { tokens: { 'tok a': 'alice' } }, agents: [agent()] }, /blank token/],
    [{ auth: { tokens: { tok: '  ' } }, agents: [agent()] }, /auth\.tokens/],
    ['not an object', /JSON object/],
  ])('refuses %j naming the problem', (raw, message) => {
    expect(() => parseConfig(raw, 'c.json')).toThrow(ConfigError);
    expect(() => parseConfig(raw, 'c.json')).toThrow(message);
  });
});
