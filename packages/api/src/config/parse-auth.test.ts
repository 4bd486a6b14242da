import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeHostKeys } from '../../test/support/host-tokens.js';
import { ConfigError } from './agent-teams-config.js';
import { loadConfig } from './load-config.js';
import { parseAuth } from './parse-auth.js';
import { parseConfig } from './parse-config.js';

const jwt = { issuer: 'https://host.example', audience: 'agent-teams', secretEnv: 'HOST_JWT_SECRET' };
const agents = [{ name: 'researcher', runtime: 'scripted' }];

describe('parseAuth', () => {
  it('reads static tokens beside host-signed tokens, or either alone', () => {
    const both = parseConfig({ auth: { tokens: { 'tok-admin': 'admin' }, jwt }, agents }, 'c.json');
    expect(both.tokens.get('tok-admin')).toBe('admin');
    expect(both.jwt?.source).toEqual({ kind: 'secretEnv', name: 'HOST_JWT_SECRET' });
    expect(parseAuth({ jwt }, 'c.json').tokens.size).toBe(0);
    expect(parseAuth({ tokens: { t: 'o' } }, 'c.json').jwt).toBeUndefined();
    expect(parseAuth(undefined, 'c.json')).toEqual({ tokens: new Map() });
  });

  it.each([
    [{ tokens: {}, jwks: {} }, /auth\.jwks is not a setting/],
    [{}, /auth must be an object with tokens/],
    [[], /auth must be an object with tokens/],
    [{ tokens: [] }, /auth\.tokens must be an object/],
    [{ jwt: { ...jwt, ownerclaim: 'sub' } }, /c\.json: auth\.jwt\.ownerclaim is not a setting/],
    [{ tokens: { t: 'nul\u0000owner' } }, /auth\.tokens\["t"\] must not hold a control character/],
    [{ tokens: { t: 'two\nlines' } }, /auth\.tokens\["t"\] must not hold a control character/],
    [{ tokens: { t: 'half \ud800' } }, /an unpaired surrogate/],
  ])('refuses %j at start-up', (raw, message) => {
    expect(() => parseAuth(raw, 'c.json')).toThrow(ConfigError);
    expect(() => parseAuth(raw, 'c.json')).toThrow(message);
  });
});

describe('loadConfig with auth.jwt', () => {
  it('reads the public key file next to the configuration file, and stops at a missing secret', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'auth-config-'));
    try {
      await writeFile(join(dir, 'host.pem'), (await makeHostKeys('ES256')).publicPem);
      const withKey = join(dir, 'with-key.json');
      await writeFile(
        withKey,
        JSON.stringify({ auth: { jwt: { ...jwt, secretEnv: null, publicKeyFile: 'host.pem' } }, agents }),
      );
      const loaded = await loadConfig(withKey, { host: '127.0.0.1', env: {} });
      expect(loaded.jwt).toMatchObject({ algorithms: ['ES256'], key: { kind: 'publicKey' } });
      const withSecret = join(dir, 'with-secret.json');
      await writeFile(withSecret, JSON.stringify({ auth: { jwt }, agents }));
      await expect(loadConfig(withSecret, { host: '127.0.0.1', env: {} })).rejects.toThrow(
        /HOST_JWT_SECRET is not set/,
      );
      const secret = 's'.repeat(32);
      expect(
        (await loadConfig(withSecret, { host: '127.0.0.1', env: { HOST_JWT_SECRET: secret } })).jwt?.key.kind,
      ).toBe('secret');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs the demo without host-signed tokens', async () => {
    expect((await loadConfig(null, { host: '127.0.0.1', env: {} })).jwt).toBeNull();
  });
});
