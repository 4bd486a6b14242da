import { asOwnerId } from '@agent-teams/core';
import type { FakeClock } from '@agent-teams/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEND_REQUEST } from '../graphql/fixtures.js';
import { type Frame, type RawSocket, until } from '../live/live-clients.js';
import { type HostTokenApp, openHostTokenApp } from './host-token-app.js';
import { refusedTokens } from './refused-tokens.js';

const EVENTS = 'subscription($t: ID!, $after: Int) { teamEvents(teamId: $t, afterSeq: $after) { seq } }';
const seqOf = (frame: Frame) => (frame.payload as { data: { teamEvents: { seq: number } } }).data.teamEvents.seq;
const seqsOf = (socket: RawSocket) => socket.frames.filter((frame) => frame.type === 'next').map(seqOf);

/** Opens a socket, initialises it with `token` (waiting for the ack) and follows `teamId`'s events. */
async function follow(app: HostTokenApp, token: string, teamId: string, afterSeq: number): Promise<RawSocket> {
  const socket = await app.pool.raw();
  await socket.init(token);
  socket.send({
    type: 'subscribe',
    id: 'events',
    payload: { query: EVENTS, variables: { t: teamId, after: afterSeq } },
  });
  return socket;
}

async function send(app: HostTokenApp, token: string, team: { id: string; members: { id: string }[] }, text: string) {
  const input = { teamId: team.id, memberIds: [team.members[0]?.id], text, clientRequestId: text };
  const { body } = await app.gql(SEND_REQUEST, { input }, token);
  if (body.errors?.length) throw new Error(JSON.stringify(body.errors));
}

async function head(app: HostTokenApp, owner: string, teamId: string): Promise<number> {
  return (await app.app.core.teams.get(asOwnerId(owner), teamId))?.lastEventSeq ?? 0;
}

describe('host-signed tokens over WebSocket (fake clock)', () => {
  let app: HostTokenApp;
  beforeAll(async () => {
    app = await openHostTokenApp();
  });
  afterAll(() => app.close());

  it('closes with 4403 at connection_init for every refused token', async () => {
    for (const refused of await refusedTokens(app)) {
      const socket = await app.pool.raw();
      socket.send({ type: 'connection_init', payload: { authorization: `Bearer ${refused.token}` } });
      expect({ case: refused.name, closed: await socket.closed }).toEqual({
        case: refused.name,
        closed: { code: 4403, reason: 'Forbidden' },
      });
      expect(socket.frames).toEqual([]);
    }
  });

  it('stops delivering once the token expired, and a fresh token resumes by seq with no gap and no duplicate', async () => {
    const clock = app.clock as FakeClock;
    const now = Math.floor(clock.nowMs() / 1000);
    const first = await app.token({ sub: 'user-resume', iat: now, exp: now + 60 });
    const team = await app.createTeam(first);
    const old = await follow(app, first, team.id, 0);
    await send(app, first, team, 'before expiry');
    const before = await head(app, 'user-resume', team.id);
    await until(() => seqsOf(old).at(-1) === before, 'the events before the expiry');
    // Time passes beyond exp + tolerance on the server's clock; the next delivery finds it out.
    clock.advance(66_000);
    const fresh = await app.token({ sub: 'user-resume' });
    await send(app, fresh, team, 'after expiry');
    expect(await head(app, 'user-resume', team.id)).toBeGreaterThan(before);
    expect(await old.closed).toEqual({ code: 4403, reason: 'Forbidden' });
    expect(seqsOf(old).every((seq) => seq <= before)).toBe(true);
    const resumed = await follow(app, fresh, team.id, seqsOf(old).at(-1) ?? 0);
    const last = await head(app, 'user-resume', team.id);
    await until(() => seqsOf(resumed).at(-1) === last, 'the replay after the expiry');
    const all = [...seqsOf(old), ...seqsOf(resumed)];
    expect(all).toEqual(Array.from({ length: last }, (_, i) => i + 1));
  });

  it('refuses an already expired token at init even when it was valid when signed', async () => {
    const clock = app.clock as FakeClock;
    const now = Math.floor(clock.nowMs() / 1000);
    const token = await app.token({ iat: now, exp: now + 10 });
    clock.advance(16_000);
    const socket = await app.pool.raw();
    socket.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
    expect((await socket.closed).code).toBe(4403);
  });
});

describe('host-signed tokens over WebSocket (real time)', () => {
  let app: HostTokenApp;
  beforeAll(async () => {
    app = await openHostTokenApp({ clock: 'system', settings: { clockToleranceSeconds: 0 } });
  });
  afterAll(() => app.close());

  it("closes an idle socket with 4403 at its token's expiry, by its own timer", async () => {
    const long = await app.token({ sub: 'user-idle' });
    const team = await app.createTeam(long);
    const expiresAtMs = (Math.floor(Date.now() / 1000) + 2) * 1000;
    const short = await app.token({ sub: 'user-idle', exp: expiresAtMs / 1000 });
    const socket = await follow(app, short, team.id, 0);
    await socket.waitFor((frame) => frame.type === 'next');
    const closed = await socket.closed;
    expect(closed.code).toBe(4403);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAtMs);
    // The keep-alive tick is 15 s away: only the expiry timer can have closed it this soon.
    expect(Date.now()).toBeLessThan(expiresAtMs + 10_000);
  });
});
