import { describe, expect, it } from 'vitest';
import { ConfigError } from './agent-teams-config.js';
import { DEMO_AGENTS, demoAgents } from './demo-config.js';

describe('demoAgents', () => {
  it('keeps the scripted agents unless AGENT_TEAMS_DEMO_PROVIDER says openai, and refuses other providers', () => {
    expect(demoAgents({})).toBe(DEMO_AGENTS);
    expect(demoAgents({ AGENT_TEAMS_DEMO_PROVIDER: ' Scripted ' })).toBe(DEMO_AGENTS);
    expect(demoAgents({ AGENT_TEAMS_DEMO_PROVIDER: 'openai' }).map((agent) => agent.runtime)).toEqual([
      'openai',
      'openai',
      'openai',
    ]);
    expect(() => demoAgents({ AGENT_TEAMS_DEMO_PROVIDER: 'anthropic' })).toThrow(ConfigError);
  });

  it('refuses a malformed provider setting at start-up, naming its variable', () => {
    const openai = { AGENT_TEAMS_DEMO_PROVIDER: 'openai' };
    expect(() => demoAgents({ ...openai, AGENT_TEAMS_OPENAI_BASE_URL: 'api.openai.com/v1' })).toThrow(
      /^AGENT_TEAMS_OPENAI_BASE_URL: baseUrl must be an absolute http\(s\) URL/,
    );
    expect(() => demoAgents({ ...openai, AGENT_TEAMS_OPENAI_API_KEY_ENV: 'my key' })).toThrow(
      /^AGENT_TEAMS_OPENAI_API_KEY_ENV: /,
    );
    expect(
      demoAgents({ ...openai, AGENT_TEAMS_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' })[0]?.settings,
    ).toMatchObject({
      baseUrl: 'http://127.0.0.1:11434/v1',
    });
  });
});
