import { describe, expect, it } from 'vitest';
import { ConfigError } from './agent-teams-config.js';
import { loadConfig } from './load-config.js';

describe('loadConfig without a file: the development token', () => {
  const loopback = { host: '127.0.0.1' };

  it('is dev-token on loopback, AGENT_TEAMS_DEV_TOKEN when set, and a blank variable counts as unset', async () => {
    expect((await loadConfig(null, { ...loopback, env: {} })).devToken).toBe('dev-token');
    expect((await loadConfig(null, { ...loopback, env: { AGENT_TEAMS_DEV_TOKEN: 'tok-1' } })).devToken).toBe('tok-1');
    expect((await loadConfig(null, { ...loopback, env: { AGENT_TEAMS_DEV_TOKEN: '' } })).devToken).toBe('dev-token');
    expect((await loadConfig(null, { ...loopback, env: { AGENT_TEAMS_DEV_TOKEN: '  ' } })).devToken).toBe('dev-token');
  });

  it('refuses a token no Authorization header could carry, naming the variable', async () => {
    for (const token of ['two words', 'tab\there', 'naïve']) {
      const env = { AGENT_TEAMS_DEV_TOKEN: token };
      await expect(loadConfig(null, { ...loopback, env })).rejects.toThrow(ConfigError);
      await expect(loadConfig(null, { ...loopback, env })).rejects.toThrow(
        /^AGENT_TEAMS_DEV_TOKEN must be printable ASCII without spaces/,
      );
    }
  });
});
