import { agentTeamsHandlers, createWidgetFake } from '@agent-teams/testkit/msw';
import type { RequestHandler } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVITY_QUERY,
  AGENTS_QUERY,
  CONVERSATION_QUERY,
  CREATE_TEAM,
  createApi,
  SEND_REQUEST,
  TEAM_QUERY,
  TEAMS_QUERY,
  WidgetError,
} from './api.js';
import {
  ASSIGN_TASK,
  CANCEL_TASK,
  CREATE_TASK,
  TASK_QUERY,
  TASKS_QUERY,
  UPDATE_TASK,
  writeTask,
} from './task-board-api.js';
import { BUDGET_QUERY, MESSAGES_QUERY, SEND_MESSAGE, SET_BUDGET } from './ui/teamwork-queries.js';

// testkit's agentTeamsHandlers answer the widget's own documents (the ones it ships), so a host's
// front-end tests can mount the widget without a server.
const endpoint = 'http://host.test/graphql';
const fake = createWidgetFake({ reply: (text, member) => `${member.name} did: ${text}` });
// The cast: in this workspace tsc reads testkit's source under the widget's Bundler resolution,
// which picks msw's CJS typings there; an installed testkit's .d.ts has no such split.
const handlers = agentTeamsHandlers({ endpoint, token: 'tok', fake }) as unknown as RequestHandler[];
const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

// biome-ignore lint/suspicious/noExplicitAny: each test reads the shape its document asked for
type Data = Record<string, any>;

describe('agentTeamsHandlers with the widget client', () => {
  const api = createApi({ endpoint, token: async () => 'tok' });
  afterAll(() => api.dispose());

  it('lists the agents, creates a team and shows it', async () => {
    const agents = await api.query<Data>(AGENTS_QUERY);
    expect(agents.agents.edges.map((e: Data) => e.node.name)).toEqual(['researcher', 'reviewer', 'writer']);
    const members = [
      { name: 'Ada', agentId: 'researcher' },
      { name: 'Bo', agentId: 'writer' },
    ];
    const created = await api.mutate<Data>(CREATE_TEAM, {
      input: { clientRequestId: 'c', name: 'Docs', goal: 'Write', members },
    });
    const teams = await api.query<Data>(TEAMS_QUERY);
    expect(teams.viewer.teams.edges).toEqual([{ node: created.createTeam.team }]);
    const team = await api.query<Data>(TEAM_QUERY, { id: created.createTeam.team.id });
    expect(team.team.members.map((m: Data) => [m.name, m.agent.name])).toEqual([
      ['Ada', 'researcher'],
      ['Bo', 'writer'],
    ]);
  });

  it('finishes a request at once and shows it in the activity and the conversation', async () => {
    const [team] = fake.teams.values();
    const bo = team?.members[1];
    const sent = await api.mutate<Data>(SEND_REQUEST, {
      input: { teamId: team?.id, memberIds: [bo?.id], text: 'a summary', clientRequestId: 's' },
    });
    const activity = await api.query<Data>(ACTIVITY_QUERY, { id: team?.id });
    const job = activity.team.activity.jobs.edges[0].node;
    expect(job).toMatchObject({ id: sent.sendRequest.jobs[0].id, status: 'COMPLETED' });
    expect(job.result.text).toBe('Bo did: a summary');
    const conversation = await api.query<Data>(CONVERSATION_QUERY, { id: bo?.id });
    expect(conversation.node.conversation.edges.map((e: Data) => e.node.role)).toEqual(['USER', 'ASSISTANT']);
  });

  it('sends team messages and lists them, sets and reads the budget, like the teamwork chunk asks', async () => {
    const [team] = fake.teams.values();
    const ada = team?.members[0];
    const input = { teamId: team?.id, memberIds: [ada?.id], text: 'hi', delivery: 'QUIET', clientRequestId: 'm' };
    const sent = await api.mutate<Data>(SEND_MESSAGE, { input });
    expect(sent.sendMessage.message).toMatchObject({
      from: null,
      to: [{ name: 'Ada' }],
      text: 'hi',
      delivery: 'QUIET',
    });
    const listed = await api.query<Data>(MESSAGES_QUERY, { id: team?.id });
    expect(listed.team.messages.edges.map((e: Data) => e.node.id)).toEqual([sent.sendMessage.message.id]);
    const set = await api.mutate<Data>(SET_BUDGET, { input: { teamId: team?.id, maxTokens: 100, maxCost: null } });
    expect(set.setTeamBudget.team.budget).toEqual({ maxTokens: 100, maxCost: null, usedTokens: 0, usedCost: 0 });
    const read = await api.query<Data>(BUDGET_QUERY, { id: team?.id });
    expect(read.team.budget.maxTokens).toBe(100);
    if (team) team.status = 'CLOSED';
    await expect(api.mutate(SEND_MESSAGE, { input })).rejects.toMatchObject({ code: 'TEAM_CLOSED' });
    if (team) team.status = 'READY';
  });

  it("answers the task board's operations with the server's rules", async () => {
    const [team] = fake.teams.values();
    const ada = team?.members[0];
    const spec = await writeTask(api, CREATE_TASK, { teamId: team?.id, title: 'Spec', clientRequestId: 't1' });
    const ship = await writeTask(api, CREATE_TASK, {
      teamId: team?.id,
      title: 'Ship',
      dependsOn: [spec.task.id],
      clientRequestId: 't2',
    });
    expect(ship.task).toMatchObject({ status: 'OPEN', revision: 1, dependsOn: [{ id: spec.task.id, title: 'Spec' }] });
    const blocked = writeTask(api, ASSIGN_TASK, { taskId: ship.task.id, expectedRevision: 1, memberId: ada?.id });
    await expect(blocked).rejects.toMatchObject({ code: 'TASK_BLOCKED', ids: [spec.task.id] });
    const edited = await writeTask(api, UPDATE_TASK, { taskId: spec.task.id, expectedRevision: 1, title: 'Spec v2' });
    expect(edited.task.revision).toBe(2);
    const stale = writeTask(api, CANCEL_TASK, { taskId: spec.task.id, expectedRevision: 1 });
    await expect(stale).rejects.toMatchObject({ code: 'TASK_STALE_REVISION', currentRevision: 2 });
    const assigned = await writeTask(api, ASSIGN_TASK, {
      taskId: spec.task.id,
      expectedRevision: 2,
      memberId: ada?.id,
    });
    expect(assigned.task.owner).toEqual({ id: ada?.id, name: 'Ada' });
    const board = await api.query<Data>(TASKS_QUERY, { id: team?.id });
    expect(board.team.tasks.edges.map((e: Data) => [e.node.title, e.node.status])).toEqual([
      ['Spec v2', 'CLAIMED'],
      ['Ship', 'OPEN'],
    ]);
    const one = await api.query<Data>(TASK_QUERY, { id: ship.task.id });
    expect(one.node.title).toBe('Ship');
  });

  it("answers with the server's error codes", async () => {
    const one = api.mutate(CREATE_TEAM, { input: { clientRequestId: 'x', name: 'x', goal: 'x', members: [] } });
    await expect(one).rejects.toMatchObject({ code: 'MEMBER_COUNT' });
    const stranger = createApi({ endpoint, token: async () => 'other' });
    const refused = await stranger.query(TEAMS_QUERY).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WidgetError);
    expect((refused as WidgetError).code).toBe('UNAUTHENTICATED');
    stranger.dispose();
  });
});
