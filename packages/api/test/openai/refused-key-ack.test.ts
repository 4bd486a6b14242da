import { JobPhase } from '@agent-teams/core';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackOrError } from '../support/chat-provider-server.js';
import { OWNER, openTeamHarness, waitFor } from './openai-team-harness.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: loopbackOrError }));
afterAll(() => server.close());

describe('a run parked on a refused key is acknowledged before the team disconnects', () => {
  // 60 s: the refusal certainly comes within the grace; 0: the run is acknowledged at its start.
  it.each([60_000, 0])(
    'shows the job RUNNING while the team waits for reconnectTeam (grace %i ms)',
    async (ackGraceMs) => {
      const h = await openTeamHarness({ ackGraceMs });
      try {
        h.provider.enqueue(
          { kind: 'error', status: 401, message: 'Incorrect API key provided' },
          { kind: 'answer', content: 'Back online.' },
        );
        const { team, lead } = await h.team();
        const job = await h.send(team, lead, 'Status?');
        await waitFor(
          async () => (await h.core.teams.get(OWNER, team.id))?.status === 'DISCONNECTED',
          'the disconnect',
        );
        await h.scheduler.idle();
        const parked = await h.job(job.id);
        expect(parked.phase).toBe(JobPhase.RUNNING);
        expect(parked.runId).not.toBeNull();
        await h.core.teams.reconnect(OWNER, team.id);
        h.scheduler.wake();
        await waitFor(async () => (await h.job(job.id)).phase === JobPhase.COMPLETED, 'the turn to finish');
        expect(h.provider.requests).toHaveLength(2);
      } finally {
        await h.close();
        server.resetHandlers();
      }
    },
  );
});
