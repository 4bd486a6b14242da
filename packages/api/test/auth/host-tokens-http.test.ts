import type { FakeClock } from '@agent-teams/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWKS_LIMITS } from '../../src/auth/jwks-key-set.js';
import { OWNER_CLAIM_MAX_CHARS } from '../../src/auth/jwt-verifier.js';
import { makeHostKeys } from '../support/host-tokens.js';
import { TOKENS } from '../support/test-app.js';
import { type HostTokenApp, openHostTokenApp } from './host-token-app.js';
import { refusedTokens } from './refused-tokens.js';

const VIEWER = '{ viewer { id } }';
let app: HostTokenApp;

beforeAll(async () => {
  app = await openHostTokenApp();
});
afterAll(() => app.close());

describe('host-signed tokens over HTTP', () => {
  it('acts for the owner the token names, beside the static tokens', async () => {
    const { body } = await app.gql(VIEWER, {}, await app.token({ sub: 'host-user-7' }));
    expect(body).toEqual({ data: { viewer: { id: 'host-user-7' } } });
    expect((await app.gql(VIEWER, {}, TOKENS.alice)).body).toEqual({ data: { viewer: { id: 'alice' } } });
    const longest = 'é'.repeat(OWNER_CLAIM_MAX_CHARS);
    expect((await app.gql(VIEWER, {}, await app.token({ sub: longest }))).body.data).toEqual({
      viewer: { id: longest },
    });
  });

  it('answers every refusal exactly as an unknown token, and logs the reason without the token', async () => {
    const unknown = await app.gql(VIEWER, {}, 'tok-nobody');
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    for (const refused of await refusedTokens(app)) {
      app.app.logger.clear();
      const answer = await app.gql(VIEWER, {}, refused.token);
      expect({ case: refused.name, answer }).toEqual({ case: refused.name, answer: unknown });
      const lines = app.app.logger.at('warn');
      expect({ case: refused.name, reasons: lines.map((line) => line.fields.reason) }).toEqual({
        case: refused.name,
        reasons: [refused.reason],
      });
      expect(JSON.stringify(lines)).not.toContain(refused.token);
    }
  });

  it('serves /mcp and /a2a to the same owner, and refuses them with 401 for a refused token', async () => {
    const token = await app.token({ sub: 'host-user-mcp' });
    const team = await app.createTeam(token);
    const mcp = (authorization: string) =>
      fetch(`${app.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await mcp(`Bearer ${token}`)).status).toBe(200);
    const card = `${app.url}/a2a/${team.id}/${team.members[0]?.id}/.well-known/agent-card.json`;
    expect((await fetch(card, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const other = await app.token({ sub: 'host-user-other' });
    expect((await fetch(card, { headers: { authorization: `Bearer ${other}` } })).status).toBe(404);
    const expired = await app.token({ iat: 0, exp: 1 });
    expect((await mcp(`Bearer ${expired}`)).status).toBe(401);
    expect((await fetch(card, { headers: { authorization: `Bearer ${expired}` } })).status).toBe(401);
  });
});

describe('the host rotating its keys', () => {
  it('fetches the key set again once for a new kid, and never in a loop for unknown kids', async () => {
    const rotated = await openHostTokenApp();
    try {
      const clock = rotated.clock as FakeClock;
      const first = await rotated.token();
      expect((await rotated.gql(VIEWER, {}, first)).body.data).toEqual({ viewer: { id: 'user-1' } });
      expect(rotated.jwks.requests()).toBe(1);
      // The host publishes its next key, then signs with it.
      clock.advance(JWKS_LIMITS.cooldownMs);
      const next = await makeHostKeys('ES256', 'host-key-2');
      rotated.jwks.setKeys([rotated.host.publicJwk, next.publicJwk]);
      const second = await rotated.token({ sub: 'user-2' }, next);
      for (let i = 0; i < 5; i += 1) {
        expect((await rotated.gql(VIEWER, {}, second)).body.data).toEqual({ viewer: { id: 'user-2' } });
      }
      expect(rotated.jwks.requests()).toBe(2);
      // Tokens naming kids nobody published: refused, one fetch per cooldown at most.
      clock.advance(JWKS_LIMITS.cooldownMs);
      const stranger = await makeHostKeys('ES256', 'kid-made-up');
      const forged = await rotated.token({}, stranger);
      const answers = await Promise.all(Array.from({ length: 30 }, () => rotated.gql(VIEWER, {}, forged)));
      expect(answers.every((answer) => answer.body.errors?.[0]?.extensions?.code === 'UNAUTHENTICATED')).toBe(true);
      expect(rotated.jwks.requests()).toBe(3);
      for (let i = 0; i < 10; i += 1) await rotated.gql(VIEWER, {}, forged);
      expect(rotated.jwks.requests()).toBe(3);
    } finally {
      await rotated.close();
    }
  });
});
