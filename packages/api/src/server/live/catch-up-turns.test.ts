import { asOwnerId } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { createTeam } from '../../../test/graphql/fixtures.js';
import { TOKENS } from '../../../test/graphql/graphql-stack.js';
import { send } from '../../../test/http/http-client.js';
import { type RawSocket, until } from '../../../test/live/live-clients.js';
import { useLiveStack } from '../../../test/live/live-stack.js';
import { FEED_RING_SIZE } from '../team-feed.js';
import { EVENTS_PER_PASS } from './deliver-woken.js';

const live = useLiveStack();

/** Sockets of alice catching up, each with its cap of subscriptions (20), every document its own. */
const SOCKETS = 5;
const PER_SOCKET = 20;

const nexts = (raw: RawSocket, id?: string) =>
  raw.frames.filter((frame) => frame.type === 'next' && (id === undefined || frame.id === id));

describe("catch-ups from a team feed's ring", () => {
  it("let another owner's request through while they run, and still deliver every event in order", async () => {
    expect(EVENTS_PER_PASS).toBeLessThan(FEED_RING_SIZE / 4);
    const team = await createTeam(live.stack, TOKENS.alice);
    // One subscriber keeps the team's feed, so the events below stay in its ring, views loaded.
    const holder = await live.pool.raw();
    await holder.init(TOKENS.alice);
    holder.send({
      type: 'subscribe',
      id: 'holder',
      payload: { query: `subscription { teamEvents(teamId: "${team.id}") { seq } }` },
    });
    const alice = asOwnerId('alice');
    for (let i = 1; i <= FEED_RING_SIZE; i++) {
      await live.stack.core.budgets.setTeamBudget(alice, team.id, { maxTokens: i, maxCost: null });
    }
    const head = (await live.stack.core.teams.get(alice, team.id))?.lastEventSeq ?? 0;
    await until(() => nexts(holder).length >= FEED_RING_SIZE, 'the holder saw every event', 30_000);
    const from = head - FEED_RING_SIZE;
    const sockets = await Promise.all(Array.from({ length: SOCKETS }, () => live.pool.raw()));
    await Promise.all(sockets.map((raw) => raw.init(TOKENS.alice)));
    for (const [s, raw] of sockets.entries()) {
      for (let i = 0; i < PER_SOCKET; i++) {
        // An alias of its own: no two share a result group, so each executes every event itself.
        const query = `subscription { teamEvents(teamId: "${team.id}", afterSeq: ${from}) { s${s}x${i}: seq } }`;
        raw.send({ type: 'subscribe', id: `c${i}`, payload: { query } });
      }
    }
    const total = SOCKETS * PER_SOCKET * FEED_RING_SIZE;
    const delivered = () => sockets.reduce((sum, raw) => sum + nexts(raw).length, 0);
    await until(() => delivered() > 0, 'a first caught-up event', 30_000);
    // Without a yield each catch-up ran to its end in one task: the request waited for all of them.
    const answer = await send(`${live.base}/graphql`, {
      headers: { authorization: `Bearer ${TOKENS.bob}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { id } }' }),
    });
    expect(answer.status).toBe(200);
    expect(delivered()).toBeLessThan(total);
    await until(() => delivered() === total, 'every caught-up event', 60_000);
    for (const [s, raw] of sockets.entries()) {
      for (let i = 0; i < PER_SOCKET; i++) {
        const seqs = nexts(raw, `c${i}`).map(
          (frame) => (frame.payload as { data: { teamEvents: Record<string, number> } }).data.teamEvents[`s${s}x${i}`],
        );
        expect(seqs).toEqual(Array.from({ length: FEED_RING_SIZE }, (_, k) => from + k + 1));
      }
    }
    for (const raw of [holder, ...sockets]) raw.socket.close();
  }, 120_000);
});
