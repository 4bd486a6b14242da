import { asOwnerId } from '@agent-teams/core';
import { type Client, createClient, type FormattedExecutionResult } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTeam, sendRequest, type TeamFixture } from './fixtures.js';
import { createGraphqlStack, type GraphqlStack, TOKENS } from './graphql-stack.js';

// `jobProgress` ends: the job's terminal payload, then graphql-ws `complete` (a real server on
// loopback, a real graphql-ws client).

let stack: GraphqlStack;
let baseUrl: string;
const clients: Client[] = [];

beforeAll(async () => {
  stack = await createGraphqlStack();
  baseUrl = (await stack.server.listen(0, '127.0.0.1')).url;
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await stack.close();
});

/** A client that keeps one socket open between subscriptions (`lazy: false`), counting connections. */
function client(token: string = TOKENS.alice): { client: Client; connections: () => number } {
  let connections = 0;
  const created = createClient({
    url: `${baseUrl.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
    on: { connected: () => (connections += 1) },
  });
  clients.push(created);
  return { client: created, connections: () => connections };
}

const PROGRESS = 'subscription($id: ID!) { jobProgress(jobId: $id) { job { id status } textDelta toolCall } }';

type Progress = { job: { id: string; status: string }; textDelta: string | null; toolCall: string | null };

/** What one subscription received, and how it ended. */
interface Run {
  readonly results: FormattedExecutionResult<Record<string, unknown>, unknown>[];
  /** Resolves with 'complete' or the error once the server ended the subscription. */
  readonly ended: Promise<'complete' | unknown>;
}

/** Subscribes with `log` told of every result in arrival order (one socket delivers in order). */
function run(c: Client, query: string, variables: Record<string, unknown>, log?: (data: unknown) => void): Run {
  const results: FormattedExecutionResult<Record<string, unknown>, unknown>[] = [];
  const ended = new Promise<'complete' | unknown>((resolve) => {
    c.subscribe<Record<string, unknown>>(
      { query, variables },
      {
        next: (result) => {
          results.push(result);
          log?.(result.data);
        },
        error: (error) => resolve(error),
        complete: () => resolve('complete'),
      },
    );
  });
  return { results, ended };
}

/** `run.ended`, failing instead of hanging when the server never ends the subscription. */
async function endOf(subscription: Run, what: string): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within 5 s`)), 5_000);
  });
  try {
    return await Promise.race([subscription.ended, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const progressOf = (r: Run) => r.results.map((result) => result.data?.jobProgress as Progress);

/** A job that waits for an answer, so a subscription is set up before anything streams. */
async function waitingJob(team: TeamFixture): Promise<string> {
  const [jobId = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], '!ask Go?');
  await stack.waitForJob(jobId, ['WAITING_INPUT']);
  return jobId;
}

describe('jobProgress ends with its job', () => {
  it('delivers the deltas of a running job, then its terminal payload, then complete', async () => {
    const team = await createTeam(stack);
    const jobId = await waitingJob(team);
    const progress = run(client().client, PROGRESS, { id: jobId });
    await stack.waitForListeners({ progress: 1 });
    await stack.core.jobs.respond(asOwnerId('alice'), { jobId, response: '!stream 3', clientRequestId: 'end-a' });

    expect(await endOf(progress, 'the running job’s progress')).toBe('complete');
    const payloads = progressOf(progress);
    expect(payloads.map((p) => p.textDelta).filter((delta) => delta !== null)).toEqual([
      'delta 1',
      ' delta 2',
      ' delta 3',
    ]);
    expect(payloads.at(-1)).toEqual({ job: { id: jobId, status: 'COMPLETED' }, textDelta: null, toolCall: null });
    // Only the last payload is the terminal one.
    expect(payloads.filter((p) => p.job.status === 'COMPLETED')).toHaveLength(1);
  });

  it('answers a job already finished with one payload of its final state, then complete', async () => {
    const team = await createTeam(stack);
    const [jobId = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], '!fail broken');
    await stack.waitForJob(jobId, ['FAILED']);
    const progress = run(client().client, PROGRESS, { id: jobId });
    expect(await endOf(progress, 'the finished job’s progress')).toBe('complete');
    expect(progressOf(progress)).toEqual([{ job: { id: jobId, status: 'FAILED' }, textDelta: null, toolCall: null }]);
  });

  it('frees the slot of each ended subscription: 25 in a row on one socket, then a query still runs', async () => {
    const team = await createTeam(stack);
    const [jobId = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], '!reply done');
    await stack.waitForJob(jobId, ['COMPLETED']);
    const { client: c, connections } = client();
    // More than the socket's 20 slots: each must be released when its stream ends.
    for (let i = 0; i < 25; i += 1) {
      const progress = run(c, PROGRESS, { id: jobId });
      expect(await endOf(progress, `subscription ${i + 1}`)).toBe('complete');
      expect(progress.results.map((result) => result.errors ?? null)).toEqual([null]);
    }
    const viewer = run(c, '{ viewer { id } }', {});
    expect(await endOf(viewer, 'the viewer query')).toBe('complete');
    expect(viewer.results).toEqual([{ data: { viewer: { id: 'alice' } } }]);
    expect(connections()).toBe(1);
  });

  it('shows the job as it is when each payload is sent, never older than a status teamEvents sent', async () => {
    const team = await createTeam(stack);
    const jobId = await waitingJob(team);
    const { client: c } = client();
    // One socket delivers both subscriptions' frames in the order the server sent them.
    const log: { from: 'team' | 'progress'; status: string; delta: boolean }[] = [];
    const events = run(
      c,
      'subscription($teamId: ID!) { teamEvents(teamId: $teamId) { ... on JobChanged { job { id status } } } }',
      { teamId: team.id },
      (data) => {
        const job = (data as { teamEvents: { job?: { id: string; status: string } } }).teamEvents.job;
        if (job?.id === jobId) log.push({ from: 'team', status: job.status, delta: false });
      },
    );
    const progress = run(c, PROGRESS, { id: jobId }, (data) => {
      const p = (data as { jobProgress: Progress }).jobProgress;
      log.push({ from: 'progress', status: p.job.status, delta: p.textDelta !== null });
    });
    await stack.waitForListeners({ progress: 1 });
    await stack.core.jobs.respond(asOwnerId('alice'), { jobId, response: '!stream 3', clientRequestId: 'end-d' });
    expect(await endOf(progress, 'the progress')).toBe('complete');

    const deltas = log.filter((entry) => entry.from === 'progress' && entry.delta);
    expect(deltas).toHaveLength(3);
    // The subscription started while the job waited for input; the answer made it run.
    expect(deltas.map((entry) => entry.status)).not.toContain('WAITING_INPUT');
    const running = log.findIndex((entry) => entry.from === 'team' && entry.status === 'RUNNING');
    expect(running).toBeGreaterThanOrEqual(0);
    const after = log.slice(running + 1).filter((entry) => entry.from === 'progress');
    expect(after.length).toBeGreaterThan(0);
    for (const entry of after) expect(['RUNNING', 'COMPLETED']).toContain(entry.status);
    expect(log.filter((entry) => entry.from === 'progress').at(-1)?.status).toBe('COMPLETED');
    // teamEvents follows the team, not the job: it stays open.
    expect(await Promise.race([events.ended, Promise.resolve('open')])).toBe('open');
  });

  it('still refuses a job of another owner (NOT_FOUND), as before', async () => {
    const team = await createTeam(stack);
    const [jobId = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], '!reply mine');
    const progress = run(client(TOKENS.bob).client, PROGRESS, { id: jobId });
    expect(await endOf(progress, 'the refused subscription')).toBe('complete');
    // One result with the error and no data, as for any other refused subscription.
    expect(progress.results.map((result) => [result.data ?? null, result.errors?.[0]?.extensions?.code])).toEqual([
      [null, 'NOT_FOUND'],
    ]);
  });
});
