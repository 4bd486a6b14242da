import { agentTeamsHandlers, createWidgetFake, type FakeTeam, fakeTasks } from '@agent-teams/testkit/msw';
import { render } from '@solidjs/testing-library';
import type { RequestHandler } from 'msw';
import { setupServer } from 'msw/node';
import { vi } from 'vitest';
import { type Api, createApi } from '../api.js';
import { CREATE_TASK, type TaskPayload, type TaskView, writeTask } from '../task-board-api.js';
import type { SubscriptionSink } from '../ws-client.js';
import { TaskBoard } from './task-board.js';
import { TEST_ENDPOINT } from './test-context.js';
import { withTeam } from './test-team.js';

/**
 * The board's component tests run against testkit's msw fake, whose task answers go through the
 * core's own rules (`decideTask`): revisions, stale writes, blocked claims and cycles are real.
 */
export function boardServer() {
  const fake = createWidgetFake();
  // The cast: tsc reads testkit's source with msw's CJS typings here (see agent-teams-handlers.test.ts).
  const handlers = agentTeamsHandlers({ endpoint: TEST_ENDPOINT, fake }) as unknown as RequestHandler[];
  const server = setupServer(...handlers);
  /** What the person's browser sent, by operation name. */
  const sent: { name: string; input: Record<string, unknown> }[] = [];
  let recording = true;
  server.events.on('request:start', async ({ request }) => {
    if (!recording) return;
    const body = (await request.clone().json()) as { query: string; variables?: { input?: Record<string, unknown> } };
    const name = /^\s*\w+\s+(\w+)/.exec(body.query)?.[1] ?? '';
    if (body.variables?.input) sent.push({ name, input: body.variables.input });
  });
  /** A second client (another person or tab) writing to the same board. */
  let other: Api | null = null;
  const team: FakeTeam = {
    id: 't1',
    name: 'Team',
    goal: 'Goal',
    status: 'READY',
    members: ['Research', 'Review'].map((name, i) => ({
      id: `m${i + 1}`,
      name,
      status: 'IDLE',
      conversationId: `c-m${i + 1}`,
      agent: { id: 'researcher', name: name.toLowerCase(), title: name },
    })),
    jobs: [],
    lastEventSeq: 0,
    events: [],
    messages: [],
    budget: { maxTokens: null, maxCost: null, usedTokens: 0, usedCost: 0 },
  };
  return {
    fake,
    server,
    sent,
    /** Empties the board and what was sent (call before each test). */
    reset() {
      fake.teams.set('t1', { ...team, jobs: [], lastEventSeq: 0, events: [] });
      fakeTasks(fake, 't1').length = 0;
      sent.length = 0;
    },
    /** Writes as another client (not recorded in `sent`). */
    async write(document: string, input: Record<string, unknown>): Promise<TaskPayload> {
      other ??= createApi({ endpoint: TEST_ENDPOINT, token: async () => 'tok' });
      recording = false;
      try {
        return await writeTask(other, document, input);
      } finally {
        recording = true;
      }
    },
    /** Creates a task as another client. */
    async create(title: string, more: Record<string, unknown> = {}): Promise<TaskView> {
      const input = { teamId: 't1', title, clientRequestId: title, ...more };
      return (await this.write(CREATE_TASK, input)).task;
    },
  };
}

/**
 * Renders the board in a team; returns the team helpers and the `teamEvents` subscriptions made
 * (caught by a spy, unless `live`: then they go over the fake's WebSocket).
 */
export function renderBoard(options: { locale?: string; status?: string; live?: boolean } = {}) {
  const team = withTeam(() => <TaskBoard />, options);
  const subscriptions: { variables: Record<string, unknown>; sink: SubscriptionSink }[] = [];
  if (!options.live) {
    vi.spyOn(team.api.live, 'subscribe').mockImplementation((_query, variables, sink) => {
      subscriptions.push({ variables, sink });
      return () => {};
    });
  }
  render(team.view);
  return { ...team, subscriptions };
}
