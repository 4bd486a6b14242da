import { agentDefinition } from '@agent-teams/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobProgressNotice } from '../../src/events/progress-hub.js';
import { A2aRuntime } from '../../src/runtimes/a2a/a2a-runtime.js';
import { ask, type CollabStack, createCollabStack, eventually, NO_DATA } from '../collaboration/collab-stack.js';
import { callTool, connectMcp } from './mcp-clients.js';
import { RemoteA2aAgent } from './remote-a2a-agent.js';

const KEY = 'remote-key';
let remote: RemoteA2aAgent;
let polled: RemoteA2aAgent;
let stack: CollabStack;
let baseUrl = '';
const progress: JobProgressNotice[] = [];

beforeAll(async () => {
  remote = new RemoteA2aAgent({ apiKey: KEY });
  polled = new RemoteA2aAgent({ streaming: false });
  await remote.start();
  await polled.start();
  const a2a = (name: string, url: string, extra: Record<string, unknown> = {}, timeoutMs = 20_000) =>
    agentDefinition({ name, title: 'Analyst', runtime: 'a2a', timeoutMs, settings: { url, ...extra } });
  stack = await createCollabStack({
    agents: [
      agentDefinition({ name: 'researcher', title: 'Research' }),
      a2a('analyst', remote.url, { apiKeyEnv: 'ANALYST_KEY' }),
      a2a('polled', `${polled.url}/.well-known/agent-card.json`),
      a2a('wrong-key', remote.url, { apiKeyEnv: 'WRONG_KEY' }),
      a2a('hasty', remote.url, { apiKeyEnv: 'ANALYST_KEY' }, 400),
    ],
    runtimes: ({ database, clock, logger, mcpUrl }) => {
      if (database === null) throw new Error('the a2a runtime needs the SQL database');
      const env = { ANALYST_KEY: KEY, WRONG_KEY: 'not-the-key' };
      return [new A2aRuntime({ db: database.db, clock, logger, env, mcpUrl, retryBaseMs: 20, pollMs: 20 })];
    },
    onProgress: (notice) => progress.push(notice),
  });
  ({ url: baseUrl } = await stack.app.listen(0, '127.0.0.1'));
});
afterAll(async () => {
  await stack.close();
  await remote.stop();
  await polled.stop();
});

let teams = 0;

/** A team of Ada (scripted) and Remy, run by the given remote agent; resolves once READY. */
async function teamWith(agentId: string): Promise<{ id: string; ada: string; remy: string }> {
  teams += 1;
  const answer = await stack.gql(
    'mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id name } } } }',
    {
      input: {
        clientRequestId: `a2a-team-${teams}`,
        name: `Remote ${teams}`,
        goal: 'Analyse the quarter',
        members: [
          { name: 'Ada', agentId: 'researcher' },
          { name: 'Remy', agentId },
        ],
      },
    },
  );
  const team = ((answer.data ?? NO_DATA).createTeam as { team: { id: string; members: { id: string }[] } }).team;
  await teamStatus(team.id, 'READY');
  return { id: team.id, ada: team.members[0]?.id ?? '', remy: team.members[1]?.id ?? '' };
}

function teamStatus(teamId: string, status: string): Promise<true> {
  return eventually(async () => {
    const { data } = await stack.gql('query($id: ID!) { team(id: $id) { status } }', { id: teamId });
    return ((data ?? NO_DATA).team as { status: string } | null)?.status === status ? true : undefined;
  }, `team ${status}`);
}

async function waitingQuestion(jobId: string): Promise<string> {
  const { data } = await stack.gql('query($id: ID!) { job(id: $id) { input { question } } }', { id: jobId });
  return ((data ?? NO_DATA).job as { input: { question: string } }).input.question;
}

const messagesOf = (agent: RemoteA2aAgent, jobId: string) =>
  agent.received.filter((message) => (message.metadata?.agentTeams as { jobId?: string } | undefined)?.jobId === jobId);

describe('a remote A2A agent as a member', () => {
  it('answers a turn, keeps one A2A context per member conversation and sends the team metadata', async () => {
    const team = await teamWith('analyst');
    const first = await ask(stack, team.id, team.remy, 'Hello there');
    expect((await stack.waitFor(first, ['COMPLETED'])).result).toEqual({ text: 'echo: Hello there' });
    const second = await ask(stack, team.id, team.remy, 'And again');
    expect((await stack.waitFor(second, ['COMPLETED'])).result).toEqual({ text: 'echo: And again' });
    const [one, two] = [messagesOf(remote, first)[0], messagesOf(remote, second)[0]];
    expect(one?.contextId).toBeTruthy();
    expect(two?.contextId).toBe(one?.contextId);
    expect(one?.metadata?.agentTeams).toEqual({
      teamId: team.id,
      memberId: team.remy,
      jobId: first,
      mcpUrl: `${baseUrl}/mcp`,
      memberToken: expect.stringMatching(/^atmr_/),
    });
  });

  it('lets the remote agent call its team tools over MCP while its job runs', async () => {
    const team = await teamWith('analyst');
    const job = await ask(stack, team.id, team.remy, '!hold');
    const [held] = await eventually(
      async () => (messagesOf(remote, job).length > 0 ? messagesOf(remote, job) : undefined),
      'message',
    );
    const { mcpUrl, memberToken } = (held?.metadata?.agentTeams ?? {}) as { mcpUrl: string; memberToken: string };
    const client = await connectMcp(new URL(mcpUrl).origin, memberToken);
    const context = await callTool(client, 'read_team_context', {});
    await client.close();
    expect(context.json).toMatchObject({ team_id: team.id, goal: 'Analyse the quarter' });
    remote.release(held?.taskId ?? '');
    expect((await stack.waitFor(job, ['COMPLETED'])).result).toEqual({ text: 'released' });
  });

  it('reports streamed status texts as job progress', async () => {
    const team = await teamWith('analyst');
    const job = await ask(stack, team.id, team.remy, '!progress 3');
    expect((await stack.waitFor(job, ['COMPLETED'])).result).toEqual({ text: 'done after 3 steps' });
    const deltas = progress.filter((notice) => notice.jobId === job).map((notice) => notice.textDelta);
    expect(deltas).toEqual(expect.arrayContaining(['thinking\n', 'step 1\n', 'step 2\n', 'step 3\n']));
  });

  it('asks a person when the remote task needs input, and sends the answer to the same task', async () => {
    const team = await teamWith('analyst');
    const job = await ask(stack, team.id, team.remy, '!ask Which quarter?');
    await stack.waitFor(job, ['WAITING_INPUT']);
    expect(await waitingQuestion(job)).toBe('Which quarter?');
    const answered = await stack.gql('mutation($input: RespondInput!) { respond(input: $input) { job { status } } }', {
      input: { jobId: job, response: 'Q3', clientRequestId: 'a2a-answer-1' },
    });
    expect(answered.errors).toEqual([]);
    expect((await stack.waitFor(job, ['COMPLETED'])).result).toEqual({ text: 'answered: Q3' });
    const [question, answer] = messagesOf(remote, job);
    expect(answer?.text).toBe('Q3');
    expect(answer?.taskId).toBe(question?.taskId);
  });

  it('fails the job with the remote reason', async () => {
    const team = await teamWith('analyst');
    const job = await ask(stack, team.id, team.remy, '!fail the warehouse is offline');
    const failed = await stack.waitFor(job, ['FAILED']);
    expect(failed.error).toContain('the warehouse is offline');
  });

  it('cancels the remote task when the job is cancelled', async () => {
    const team = await teamWith('analyst');
    const job = await ask(stack, team.id, team.remy, '!hold');
    const [held] = await eventually(
      async () => (messagesOf(remote, job).length > 0 ? messagesOf(remote, job) : undefined),
      'message',
    );
    await stack.gql('mutation($id: ID!) { cancelJob(input: { jobId: $id }) { alreadyFinished } }', { id: job });
    await stack.waitFor(job, ['CANCELLED']);
    await eventually(async () => (remote.cancelled.includes(held?.taskId ?? '') ? true : undefined), 'remote cancel');
  });

  it('holds the deadline: the job fails as timed out and the remote task is cancelled', async () => {
    const team = await teamWith('hasty');
    const job = await ask(stack, team.id, team.remy, '!hold');
    const failed = await stack.waitFor(job, ['FAILED']);
    expect(String(failed.error)).toMatch(/timed out/i);
    const taskId = messagesOf(remote, job)[0]?.taskId ?? '';
    await eventually(async () => (remote.cancelled.includes(taskId) ? true : undefined), 'remote cancel');
  });

  it('follows an agent that does not stream by reading its task', async () => {
    const team = await teamWith('polled');
    const job = await ask(stack, team.id, team.remy, 'Polled please');
    expect((await stack.waitFor(job, ['COMPLETED'])).result).toEqual({ text: 'echo: Polled please' });
  });

  it('disconnects the team when the remote agent asks for auth, and continues the same task after reconnectTeam', async () => {
    const team = await teamWith('analyst');
    const job = await ask(stack, team.id, team.remy, '!auth');
    await teamStatus(team.id, 'DISCONNECTED');
    remote.grantAuth();
    await stack.gql('mutation($id: ID!) { reconnectTeam(input: { teamId: $id }) { team { status } } }', {
      id: team.id,
    });
    expect((await stack.waitFor(job, ['COMPLETED'])).result).toEqual({ text: 'authorized' });
    expect(messagesOf(remote, job)).toHaveLength(1);
  });

  it('disconnects the team when the remote agent refuses the key', async () => {
    const team = await teamWith('wrong-key');
    const job = await ask(stack, team.id, team.remy, 'Let me in');
    await teamStatus(team.id, 'DISCONNECTED');
    expect(messagesOf(remote, job)).toHaveLength(0);
    await stack.gql('mutation($id: ID!) { cancelJob(input: { jobId: $id }) { alreadyFinished } }', { id: job });
  });
});
