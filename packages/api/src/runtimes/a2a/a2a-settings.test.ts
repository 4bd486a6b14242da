import { describe, expect, it } from 'vitest';
import { A2aSettingsError, parseA2aSettings } from './a2a-settings.js';

describe('a2a settings', () => {
  it.each([
    ['https://agents.example/analyst', 'https://agents.example/analyst/.well-known/agent-card.json'],
    ['https://agents.example/analyst/', 'https://agents.example/analyst/.well-known/agent-card.json'],
    ['http://127.0.0.1:9999', 'http://127.0.0.1:9999/.well-known/agent-card.json'],
    ['https://agents.example/cards/analyst.json', 'https://agents.example/cards/analyst.json'],
    ['https://agents.example/a/.well-known/agent-card.json', 'https://agents.example/a/.well-known/agent-card.json'],
  ])('reads the card of %s at %s', (url, cardUrl) => {
    expect(parseA2aSettings({ url }).cardUrl).toBe(cardUrl);
  });

  it('keeps the key variable, or none', () => {
    expect(parseA2aSettings({ url: 'http://x', apiKeyEnv: 'KEY_1' }).apiKeyEnv).toBe('KEY_1');
    expect(parseA2aSettings({ url: 'http://x' }).apiKeyEnv).toBeNull();
  });

  it.each([
    [{}, 'url'],
    [{ url: ' ' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: 'file:///etc/passwd' }, 'url'],
    [{ url: 'http://x', apiKeyEnv: 'has space' }, 'apiKeyEnv'],
    [{ url: 'http://x', apiKeyEnv: 7 }, 'apiKeyEnv'],
  ])('refuses %j naming %s', (raw, key) => {
    expect(() => parseA2aSettings(raw)).toThrow(A2aSettingsError);
    try {
      parseA2aSettings(raw);
    } catch (error) {
      expect((error as A2aSettingsError).key).toBe(key);
    }
  });
});
