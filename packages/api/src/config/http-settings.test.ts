import { describe, expect, it } from 'vitest';
import { parseServeOptions } from '../cli-options.js';
import { DEV_TOKEN_HINT, httpSettings } from './http-settings.js';

const config = { tokens: new Map(), agents: [] };

describe('httpSettings', () => {
  it('uses the defaults without flags, environment or file settings', () => {
    expect(httpSettings(parseServeOptions([], {}), config, null)).toEqual({
      maxBodyBytes: 1_048_576,
      rateLimit: { perSecond: 50, burst: 200 },
    });
  });

  it('takes the flag, then the environment, then the config file', () => {
    const file = { ...config, maxBodyBytes: 4096, rateLimit: { perSecond: 1, burst: 5 } };
    expect(httpSettings(parseServeOptions([], {}), file, null)).toMatchObject({
      maxBodyBytes: 4096,
      rateLimit: { perSecond: 1, burst: 5 },
    });
    const env = { AGENT_TEAMS_MAX_BODY_BYTES: '8192', AGENT_TEAMS_RATE_LIMIT_BURST: '9' };
    expect(httpSettings(parseServeOptions([], env), file, null)).toMatchObject({
      maxBodyBytes: 8192,
      rateLimit: { perSecond: 1, burst: 9 },
    });
    expect(httpSettings(parseServeOptions(['--max-body-bytes', '2048'], env), file, null).maxBodyBytes).toBe(2048);
  });

  it('says where the development token was printed on loopback only, and never carries the token', () => {
    expect(httpSettings(parseServeOptions([], {}), config, 'dev-token').tokenHint).toBe(DEV_TOKEN_HINT);
    expect(httpSettings(parseServeOptions(['--host', '0.0.0.0'], {}), config, 'dev-xyz').tokenHint).toBeUndefined();
    expect(httpSettings(parseServeOptions([], {}), config, null).tokenHint).toBeUndefined();
    expect(JSON.stringify(httpSettings(parseServeOptions([], {}), config, 'dev-token'))).not.toContain('dev-token');
  });
});
