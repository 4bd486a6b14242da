import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/agent-teams-config.js';
import { JWT_BOUNDS, parseJwtConfig } from './jwt-config.js';

const base = { issuer: 'https://host.example', audience: 'agent-teams' };
const parse = (raw: Record<string, unknown>) => parseJwtConfig({ ...base, ...raw }, 'c.json');

describe('parseJwtConfig', () => {
  it('reads the contract example with its defaults', () => {
    expect(parse({ publicKeyFile: './keys/host-es256.pem', jwksUrl: null })).toEqual({
      ...base,
      algorithms: ['ES256', 'RS256', 'EdDSA'],
      ownerClaim: 'sub',
      maxLifetimeSeconds: 3600,
      clockToleranceSeconds: 5,
      source: { kind: 'publicKeyFile', path: './keys/host-es256.pem' },
    });
  });

  it('defaults to HS256 with a secret and reads a JWKS URL', () => {
    expect(parse({ secretEnv: 'HOST_JWT_SECRET' })).toMatchObject({
      algorithms: ['HS256'],
      source: { kind: 'secretEnv', name: 'HOST_JWT_SECRET' },
    });
    expect(parse({ jwksUrl: 'https://host.example/.well-known/jwks.json', ownerClaim: 'user_id' })).toMatchObject({
      ownerClaim: 'user_id',
      source: { kind: 'jwksUrl', url: new URL('https://host.example/.well-known/jwks.json') },
    });
    expect(parse({ jwksUrl: 'http://127.0.0.1:9/jwks' }).source.kind).toBe('jwksUrl');
    expect(parse({ jwksUrl: 'http://[::1]:9/jwks' }).source.kind).toBe('jwksUrl');
  });

  it.each([
    [{ secretEnv: 'S', extra: 1 }, /auth\.jwt\.extra is not a setting/],
    [{ secretEnv: 'S', jwks: 'https://x' }, /auth\.jwt\.jwks is not a setting/],
    [{}, /exactly one of publicKeyFile, jwksUrl or secretEnv \(found none\)/],
    [{ secretEnv: 'S', publicKeyFile: 'k.pem' }, /found publicKeyFile, secretEnv/],
    [{ secretEnv: 'S', algorithms: ['none'] }, /never include "none"/],
    [{ publicKeyFile: 'k.pem', algorithms: ['NONE'] }, /never include "none"/],
    [{ publicKeyFile: 'k.pem', algorithms: ['HS256'] }, /"HS256" is not usable with a public key/],
    [{ jwksUrl: 'https://h/j', algorithms: ['RS256', 'HS512'] }, /"HS512" is not usable with a public key/],
    [{ secretEnv: 'S', algorithms: ['RS256'] }, /"RS256" is not usable with secretEnv/],
    [{ secretEnv: 'S', algorithms: [] }, /algorithms must be a non-empty array/],
    [{ secretEnv: 'S', algorithms: 'HS256' }, /algorithms must be a non-empty array/],
    [{ secretEnv: 'S', algorithms: [256] }, /algorithms must hold strings/],
    [{ secretEnv: 'not-a-name' }, /secretEnv must name an environment variable/],
    [{ jwksUrl: 'not a url' }, /jwksUrl must be an absolute URL/],
    [{ jwksUrl: 'http://host.example/jwks' }, /jwksUrl must use https/],
    [{ jwksUrl: 'ftp://host.example/jwks' }, /jwksUrl must use https/],
    [{ jwksUrl: 'https://user:pw@host.example/jwks' }, /must not carry credentials/],
    [{ secretEnv: 'S', ownerClaim: 'iss' }, /ownerClaim cannot be "iss"/],
    [{ secretEnv: 'S', ownerClaim: 'aud' }, /ownerClaim cannot be "aud"/],
    [{ secretEnv: 'S', ownerClaim: '' }, /ownerClaim must be a non-blank string/],
    [{ secretEnv: 'S', issuer: ' https://host.example' }, /issuer must be a non-blank string/],
    [{ secretEnv: 'S', audience: 7 }, /audience must be a non-blank string/],
    [{ secretEnv: 'S', maxLifetimeSeconds: 0 }, /maxLifetimeSeconds must be an integer from 1 to 86400/],
    [{ secretEnv: 'S', maxLifetimeSeconds: JWT_BOUNDS.maxLifetimeSeconds.max + 1 }, /maxLifetimeSeconds/],
    [{ secretEnv: 'S', maxLifetimeSeconds: 1.5 }, /maxLifetimeSeconds/],
    [{ secretEnv: 'S', clockToleranceSeconds: -1 }, /clockToleranceSeconds must be an integer from 0 to 300/],
    [{ secretEnv: 'S', clockToleranceSeconds: 301 }, /clockToleranceSeconds/],
  ])('refuses %j at start-up', (raw, message) => {
    expect(() => parse(raw)).toThrow(ConfigError);
    expect(() => parse(raw)).toThrow(message);
  });

  it('requires issuer and audience, and an object', () => {
    expect(() => parseJwtConfig({ secretEnv: 'S', audience: 'a' }, 'c.json')).toThrow(/c\.json: auth\.jwt\.issuer/);
    expect(() => parseJwtConfig({ secretEnv: 'S', issuer: 'i' }, 'c.json')).toThrow(/auth\.jwt\.audience/);
    expect(() => parseJwtConfig(['x'], 'c.json')).toThrow(/auth\.jwt must be an object/);
  });

  it('accepts the bounds themselves', () => {
    for (const key of ['maxLifetimeSeconds', 'clockToleranceSeconds'] as const) {
      for (const value of [JWT_BOUNDS[key].min, JWT_BOUNDS[key].max]) {
        expect(parse({ secretEnv: 'S', [key]: value })[key]).toBe(value);
      }
    }
  });
});
