import { describe, expect, it } from 'vitest';
import { parseServeOptions, SERVE_DEFAULTS, UsageError } from './cli-options.js';

describe('parseServeOptions', () => {
  it('uses the contract defaults with no flags and no environment', () => {
    expect(parseServeOptions([], {})).toEqual({ ...SERVE_DEFAULTS, config: null, allowedOrigins: [] });
  });

  it('reads every environment twin and lets flags win over them', () => {
    const env = {
      AGENT_TEAMS_PORT: '5000',
      AGENT_TEAMS_HOST: '0.0.0.0',
      AGENT_TEAMS_DATABASE: 'postgres://db/x',
      AGENT_TEAMS_CONFIG: 'env.json',
    };
    expect(parseServeOptions([], env)).toEqual({
      port: 5000,
      host: '0.0.0.0',
      database: 'postgres://db/x',
      config: 'env.json',
      allowedOrigins: [],
    });
    expect(parseServeOptions(['--port', '0', '--database', ':memory:', '--config', 'flag.json'], env)).toEqual({
      port: 0,
      host: '0.0.0.0',
      database: ':memory:',
      config: 'flag.json',
      allowedOrigins: [],
    });
  });

  it('reads the WebSocket origin allowlist from --allowed-origins or AGENT_TEAMS_ALLOWED_ORIGINS', () => {
    const env = { AGENT_TEAMS_ALLOWED_ORIGINS: 'https://a.example, https://b.example' };
    expect(parseServeOptions([], env).allowedOrigins).toEqual(['https://a.example', 'https://b.example']);
    expect(parseServeOptions(['--allowed-origins', '*'], env).allowedOrigins).toEqual(['*']);
  });

  it('refuses unknown flags and ports outside 0..65535', () => {
    expect(() => parseServeOptions(['--colour', 'red'], {})).toThrow(UsageError);
    expect(() => parseServeOptions(['--port', '65536'], {})).toThrow(UsageError);
    expect(() => parseServeOptions(['--port', '-1'], {})).toThrow(UsageError);
    expect(() => parseServeOptions([], { AGENT_TEAMS_PORT: 'eighty' })).toThrow(/AGENT_TEAMS_PORT/);
    expect(parseServeOptions(['--port', '65535'], {}).port).toBe(65535);
  });
});
