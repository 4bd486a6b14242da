import { FakeClock, MemoryLogger } from '@agent-teams/testkit';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type HostKeyPair, hostJwtSettings, makeHostKeys, signHostToken } from '../../test/support/host-tokens.js';
import { type JwksServer, startJwksServer } from '../../test/support/jwks-server.js';
import { JWKS_LIMITS, type JwksLimits } from './jwks-key-set.js';
import { createJwtVerifier } from './jwt-verifier.js';

let first: HostKeyPair;
let second: HostKeyPair;
let stranger: HostKeyPair;
let jwks: JwksServer;
let clock: FakeClock;
let logger: MemoryLogger;

beforeAll(async () => {
  [first, second, stranger] = await Promise.all([
    makeHostKeys('ES256', 'k1'),
    makeHostKeys('RS256', 'k2'),
    makeHostKeys('ES256', 'k-unknown'),
  ]);
});

beforeEach(async () => {
  jwks = await startJwksServer([first.publicJwk]);
  clock = new FakeClock();
  logger = new MemoryLogger();
});

afterEach(() => jwks.close());

const verifier = (limits: Partial<JwksLimits> = {}) =>
  createJwtVerifier({ settings: hostJwtSettings({ kind: 'jwks', url: jwks.url }), clock, logger, jwks: { limits } });
const tokenOf = (pair: HostKeyPair) => signHostToken(pair, {}, clock.nowMs());

/** Resolves once `check` holds (5 s at most). */
async function waitUntil(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a JWKS key source', () => {
  it('fetches the set once for concurrent first uses and then answers from its cache', async () => {
    const verify = verifier();
    const token = await tokenOf(first);
    const verdicts = await Promise.all(Array.from({ length: 10 }, () => verify(token)));
    expect(verdicts.every((verdict) => verdict.ok)).toBe(true);
    expect(await verify(token)).toMatchObject({ ok: true });
    expect(jwks.requests()).toBe(1);
  });

  it('fetches a rotated set once when a token names a new kid', async () => {
    const verify = verifier();
    expect(await verify(await tokenOf(first))).toMatchObject({ ok: true });
    clock.advance(JWKS_LIMITS.cooldownMs);
    jwks.setKeys([first.publicJwk, second.publicJwk]);
    const rotated = await tokenOf(second);
    expect(await Promise.all([verify(rotated), verify(rotated)])).toMatchObject([{ ok: true }, { ok: true }]);
    expect(await verify(rotated)).toMatchObject({ ok: true });
    expect(await verify(await tokenOf(first))).toMatchObject({ ok: true });
    expect(jwks.requests()).toBe(2);
  });

  it('never fetches in a loop for unknown kids: one fetch per cooldown, whatever arrives', async () => {
    const verify = verifier();
    expect(await verify(await tokenOf(first))).toMatchObject({ ok: true });
    clock.advance(JWKS_LIMITS.cooldownMs);
    const unknown = await tokenOf(stranger);
    const refused = { ok: false, reason: 'no key in the key set for its kid' };
    expect(await Promise.all(Array.from({ length: 20 }, () => verify(unknown)))).toEqual(Array(20).fill(refused));
    for (let i = 0; i < 20; i += 1) expect(await verify(unknown)).toEqual(refused);
    expect(jwks.requests()).toBe(2);
    clock.advance(JWKS_LIMITS.cooldownMs - 1);
    expect(await verify(unknown)).toEqual(refused);
    expect(jwks.requests()).toBe(2);
    clock.advance(1);
    expect(await verify(unknown)).toEqual(refused);
    expect(jwks.requests()).toBe(3);
  });

  it('picks up a new kid only after the cooldown when the last fetch was recent', async () => {
    const verify = verifier();
    expect(await verify(await tokenOf(first))).toMatchObject({ ok: true });
    jwks.setKeys([first.publicJwk, second.publicJwk]);
    const rotated = await tokenOf(second);
    expect(await verify(rotated)).toMatchObject({ ok: false });
    clock.advance(JWKS_LIMITS.cooldownMs);
    expect(await verify(rotated)).toMatchObject({ ok: true });
    expect(jwks.requests()).toBe(2);
  });

  it("never makes a known kid wait for a fetch another token's unknown kid started", async () => {
    // Anyone can send a made-up kid; a slow or hung key-set endpoint must not stall every user.
    const verify = verifier({ timeoutMs: 1_500 });
    const known = await tokenOf(first);
    expect(await verify(known)).toMatchObject({ ok: true });
    clock.advance(JWKS_LIMITS.cooldownMs);
    jwks.setBody('hang');
    const refetch = verify(await tokenOf(stranger));
    // Until the unknown kid's miss has started the fetch (jose reads the token first).
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stalled = new Promise((resolve) => setTimeout(() => resolve('stalled'), 1_000));
    expect(await Promise.race([verify(known), stalled])).toMatchObject({ ok: true });
    expect(await refetch).toEqual({ ok: false, reason: 'no key in the key set for its kid' });
    expect(jwks.requests()).toBe(2);
  });

  it('never makes a known kid wait for the refetch of a set past its max age', async () => {
    // The first token after maxAgeMs started the refetch and waited for it: on a hung endpoint up
    // to timeoutMs, and again every cooldownMs, since a failed fetch leaves the set as old.
    const verify = verifier({ timeoutMs: 1_500 });
    expect(await verify(await tokenOf(first))).toMatchObject({ ok: true });
    clock.advance(JWKS_LIMITS.maxAgeMs);
    jwks.setBody('hang');
    const known = await tokenOf(first);
    const stalled = new Promise((resolve) => setTimeout(() => resolve('stalled'), 1_000));
    expect(await Promise.race([verify(known), stalled])).toMatchObject({ ok: true });
    // The refetch still ran (once), and gave up on its own: the known keys stay.
    await waitUntil(() => logger.at('warn').length === 1);
    expect(jwks.requests()).toBe(2);
    expect(await verify(known)).toMatchObject({ ok: true });
  });

  it('verifies a token without kid against each key of its algorithm while a rotation lists two', async () => {
    // The README's rotation publishes the new key beside the old one; a host that signs without
    // `kid` must not be refused for the whole overlap.
    const [next, forger] = await Promise.all([makeHostKeys('ES256', 'k-next'), makeHostKeys('ES256', 'k-forger')]);
    jwks.setKeys([first.publicJwk, next.publicJwk, second.publicJwk]);
    const verify = verifier();
    const withoutKid = (pair: HostKeyPair) => signHostToken({ ...pair, kid: '' }, {}, clock.nowMs());
    expect(await verify(await withoutKid(first))).toMatchObject({ ok: true });
    expect(await verify(await withoutKid(next))).toMatchObject({ ok: true });
    expect(await verify(await withoutKid(forger))).toEqual({ ok: false, reason: 'bad signature' });
    const expired = signHostToken({ ...next, kid: '' }, { iat: 0, exp: 1 }, clock.nowMs());
    expect(await verify(await expired)).toEqual({ ok: false, reason: 'expired' });
  });

  it.each([
    ['declares more than maxBytes', false],
    ['streams more than maxBytes without a length', true],
  ])('refuses tokens when the set %s, and logs why', async (_name, chunked) => {
    jwks.setBody(JSON.stringify({ keys: [first.publicJwk], padding: 'x'.repeat(2_000) }), { chunked });
    const verify = verifier({ maxBytes: 1_000 });
    expect(await verify(await tokenOf(first))).toEqual({ ok: false, reason: 'key set unavailable' });
    expect(logger.at('warn')[0]?.fields).toMatchObject({ reason: 'the key set is larger than 1000 bytes' });
  });

  it('accepts a set of exactly maxBytes', async () => {
    const body = JSON.stringify({ keys: [first.publicJwk] });
    jwks.setBody(body, { chunked: true });
    expect(await verifier({ maxBytes: Buffer.byteLength(body) })(await tokenOf(first))).toMatchObject({ ok: true });
  });

  it('gives up on a set that does not answer within the timeout', async () => {
    jwks.setBody('hang');
    const verify = verifier({ timeoutMs: 200 });
    expect(await verify(await tokenOf(first))).toEqual({ ok: false, reason: 'key set unavailable' });
    expect(logger.at('warn')).toHaveLength(1);
  });

  it('refuses while the endpoint fails, and keeps known keys when a later refresh fails', async () => {
    jwks.setBody('not json');
    const verify = verifier();
    expect(await verify(await tokenOf(first))).toEqual({ ok: false, reason: 'key set unavailable' });
    clock.advance(JWKS_LIMITS.cooldownMs);
    jwks.setKeys([first.publicJwk]);
    expect(await verify(await tokenOf(first))).toMatchObject({ ok: true });
    clock.advance(JWKS_LIMITS.maxAgeMs);
    jwks.setBody('{"keys": "nope"}');
    expect(await verify(await tokenOf(first))).toMatchObject({ ok: true });
    // The refetch of a set past its age runs beside the token that started it.
    await waitUntil(() => logger.at('warn').length === 2);
    expect(jwks.requests()).toBe(3);
    expect(logger.at('warn')).toHaveLength(2);
  });
});
