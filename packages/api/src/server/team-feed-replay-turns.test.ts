import { asOwnerId } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { createTeam } from '../../test/graphql/fixtures.js';
import { TOKENS } from '../../test/graphql/graphql-stack.js';
import { send } from '../../test/http/http-client.js';
import { until } from '../../test/live/live-clients.js';
import { useLiveStack } from '../../test/live/live-stack.js';
import { REPLAY_EVENTS_PER_TURN } from './team-feed-cursor.js';

const live = useLiveStack();

/** Subscriptions of one socket (its cap) and the events each replays from the log. */
const SUBSCRIPTIONS = 20;
const LOGGED_EVENTS = 1_000;

describe('replays from the team log', () => {
  it("let another owner's request through while they run, instead of holding the event loop to their end", async () => {
    expect(REPLAY_EVENTS_PER_TURN).toBeLessThan(LOGGED_EVENTS / 10);
    const team = await createTeam(live.stack, TOKENS.alice);
    // Each change of the budget appends one TeamChanged event to the team's log.
    for (let i = 1; i <= LOGGED_EVENTS; i++) {
      await live.stack.core.budgets.setTeamBudget(asOwnerId('alice'), team.id, { maxTokens: i, maxCost: null });
    }
    const head = (await live.stack.core.teams.get(asOwnerId('alice'), team.id))?.lastEventSeq ?? 0;
    expect(head).toBeGreaterThan(LOGGED_EVENTS);
    const raw = await live.pool.raw();
    await raw.init(TOKENS.alice);
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      raw.send({
        type: 'subscribe',
        id: `replay-${i}`,
        payload: { query: `subscription { teamEvents(teamId: "${team.id}", afterSeq: 0) { seq } }` },
      });
    }
    const total = SUBSCRIPTIONS * head;
    const delivered = () => raw.frames.filter((frame) => frame.type === 'next').length;
    await raw.waitFor((frame) => frame.type === 'next');
    // Bob's request, sent once the replays began. On SQLite a replay's reads settle in microtasks:
    // without a yield the replays ran to their end (20,000 events) before any request was read.
    const answer = await send(`${live.base}/graphql`, {
      headers: { authorization: `Bearer ${TOKENS.bob}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { id } }' }),
    });
    const deliveredAtAnswer = delivered();
    expect(answer.status).toBe(200);
    expect(deliveredAtAnswer).toBeLessThan(total);
    // And every replay still ends whole, in order.
    await until(() => delivered() === total, 'every replayed event', 60_000);
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const seqs = raw.frames
        .filter((frame) => frame.id === `replay-${i}` && frame.type === 'next')
        .map((frame) => (frame.payload as { data: { teamEvents: { seq: number } } }).data.teamEvents.seq);
      expect(seqs).toEqual(Array.from({ length: head }, (_, k) => k + 1));
    }
    raw.socket.close();
  }, 120_000);
});
