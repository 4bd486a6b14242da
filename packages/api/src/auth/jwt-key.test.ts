import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHostKeys } from '../../test/support/host-tokens.js';
import { ConfigError } from '../config/agent-teams-config.js';
import { type JwtConfig, parseJwtConfig } from './jwt-config.js';
import { loadJwtSettings } from './jwt-key.js';

let dir: string;
const base = { issuer: 'https://host.example', audience: 'agent-teams' };
const config = (raw: Record<string, unknown>): JwtConfig => parseJwtConfig({ ...base, ...raw }, 'c.json');
const load = (raw: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  loadJwtSettings(config(raw), { source: 'c.json', baseDir: dir, env });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jwt-key-'));
  const es256 = await makeHostKeys('ES256');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  await writeFile(join(dir, 'es256.pem'), es256.publicPem);
  await writeFile(join(dir, 'rsa.pem'), rsa.publicKey.export({ type: 'spki', format: 'pem' }));
  await writeFile(join(dir, 'private.pem'), rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  await writeFile(join(dir, 'broken.pem'), '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n');
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('loadJwtSettings', () => {
  it('reads a PEM public key relative to the configuration file and keeps only algorithms it fits', async () => {
    const settings = await load({ publicKeyFile: './es256.pem' });
    expect(settings.key.kind).toBe('publicKey');
    expect(settings.algorithms).toEqual(['ES256']);
    expect(
      (await load({ publicKeyFile: join(dir, 'rsa.pem'), algorithms: ['RS256', 'PS256', 'ES256'] })).algorithms,
    ).toEqual(['RS256', 'PS256']);
  });

  it('reads the HMAC secret from the environment as UTF-8 bytes', async () => {
    const settings = await load({ secretEnv: 'HOST_SECRET' }, { HOST_SECRET: 'é'.repeat(16) });
    expect(settings.key).toEqual({ kind: 'secret', secret: new TextEncoder().encode('é'.repeat(16)) });
  });

  it('keeps a JWKS URL for fetching on first use', async () => {
    expect((await load({ jwksUrl: 'https://host.example/jwks' })).key).toEqual({
      kind: 'jwks',
      url: new URL('https://host.example/jwks'),
    });
  });

  it.each([
    [{ publicKeyFile: 'missing.pem' }, {}, /publicKeyFile: cannot read .*missing\.pem/],
    [{ publicKeyFile: 'private.pem' }, {}, /private\.pem is not a PEM public key \(SPKI\)/],
    [{ publicKeyFile: 'broken.pem' }, {}, /broken\.pem is not a usable public key/],
    [{ publicKeyFile: 'es256.pem', algorithms: ['RS256'] }, {}, /none of RS256 can verify the ec key/],
    [{ secretEnv: 'HOST_SECRET' }, {}, /HOST_SECRET is not set/],
    [{ secretEnv: 'HOST_SECRET' }, { HOST_SECRET: 'x'.repeat(31) }, /holds 31 bytes; HS256 needs at least 32/],
    [
      { secretEnv: 'HOST_SECRET', algorithms: ['HS256', 'HS512'] },
      { HOST_SECRET: 'x'.repeat(63) },
      /needs at least 64/,
    ],
  ])('refuses %j at start-up', async (raw, env, message) => {
    const loading = load(raw, env);
    await expect(loading).rejects.toThrow(ConfigError);
    await expect(load(raw, env)).rejects.toThrow(message);
  });

  it('accepts a secret of exactly the needed length', async () => {
    expect((await load({ secretEnv: 'S', algorithms: ['HS384'] }, { S: 'x'.repeat(48) })).key.kind).toBe('secret');
  });
});
