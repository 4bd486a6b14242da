import { asOwnerId, type CreateTeamInput, JobPhase } from '@agent-teams/core';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import type { App } from '../../src/app/create-app.js';
import { teamInput } from '../graphql/fixtures.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { openTestApp } from '../support/test-app.js';
import { collect, wsClient } from '../support/ws-client.js';

// Two applications built by `createApp` on one PostgreSQL database, as two `serve` processes
// are: server A drives the jobs (B runs no scheduler), a `jobProgress` subscriber is on B.

const ALICE = asOwnerId('alice');
const WAIT = { timeout: 15_000, interval: 20 };

let pg: FreshPostgres;
let a: App;
let b: App;
let client: Client;

beforeAll(async () => {
  pg = await createFreshPostgres('agent_teams_progress');
  a = await openTestApp({ database: pg.url, ids: createRandomIds(), lease: { serverId: 'server-a' } });
  b = await openTestApp({
    database: pg.url,
    ids: createRandomIds(),
    lease: { serverId: 'server-b' },
    scheduler: false,
  });
  client = wsClient((await b.listen(0, '127.0.0.1')).url);
});
afterAll(async () => {
  await client?.dispose();
  await b?.close();
  await a?.close();
  await pg?.drop();
});

/**
 * A job server A runs that waits for an answer first, so a subscription on B is set up before
 * anything streams.
 */
async function waitingJob(clientRequestId: string) {
  const team = await a.core.teams.create(ALICE, teamInput() as unknown as CreateTeamInput);
  const [member] = await a.core.teams.members([team.id]);
  const [job] = await a.core.requests.send(ALICE, {
    teamId: team.id,
    memberIds: [String(member?.id)],
    text: '!ask Ready?',
    clientRequestId,
  });
  if (!job) throw new Error('no job');
  await vi.waitFor(
    async () => expect((await a.core.jobs.get(ALICE, job.id))?.phase).toBe(JobPhase.WAITING_INPUT),
    WAIT,
  );
  return job;
}

describe('jobProgress across servers', () => {
  it('shows a subscriber on server B the text deltas and tool calls of a job server A runs', async () => {
    const job = await waitingJob('progress-ask');

    type Notice = { textDelta: string | null; toolCall: string | null };
    const reading = collect(
      client,
      {
        query: 'subscription($id: ID!) { jobProgress(jobId: $id) { textDelta toolCall } }',
        variables: { id: job.id },
      },
      (data) => data.jobProgress as Notice,
      (seen) => seen.some((notice) => notice.textDelta?.endsWith('delta 4')),
    );
    await vi.waitFor(() => expect(b.progress.listening).toBe(1), WAIT);

    await a.core.jobs.respond(ALICE, {
      jobId: job.id,
      response: '!tool read_team_context {}\n!stream 4',
      clientRequestId: 'progress-answer',
    });
    const seen = await reading;
    expect(seen.filter((notice) => notice.toolCall !== null).map((notice) => notice.toolCall)).toEqual([
      'read_team_context',
    ]);
    // Deltas may arrive joined (one NOTIFY carries what came within a few milliseconds), in order.
    expect(seen.map((notice) => notice.textDelta ?? '').join('')).toBe('delta 1 delta 2 delta 3 delta 4');
    expect(a.cluster?.stats.progressSent).toBeGreaterThan(0);
  });

  // B learns the job's end from the change feed and its text from NOTIFY payloads, on two paths;
  // the stream must still carry every delta, then the terminal payload, then end.
  it('ends on server B after the last delta, with the terminal payload', async () => {
    const job = await waitingJob('progress-end-ask');

    type Payload = { job: { status: string }; textDelta: string | null };
    const payloads: Payload[] = [];
    const ended = new Promise<unknown>((resolve) => {
      client.subscribe<{ jobProgress: Payload }>(
        {
          query: 'subscription($id: ID!) { jobProgress(jobId: $id) { job { status } textDelta } }',
          variables: { id: job.id },
        },
        {
          next: (result) => {
            if (result.data) payloads.push(result.data.jobProgress);
          },
          error: resolve,
          complete: () => resolve('complete'),
        },
      );
    });
    await vi.waitFor(() => expect(b.progress.listening).toBe(1), WAIT);
    // The answer ends the job right after its last delta.
    await a.core.jobs.respond(ALICE, { jobId: job.id, response: '!stream 4', clientRequestId: 'progress-end' });

    await vi.waitFor(async () => expect(await Promise.race([ended, 'open'])).toBe('complete'), WAIT);
    // Deltas may arrive joined (one NOTIFY carries what came within a few milliseconds), in order.
    expect(payloads.map((p) => p.textDelta ?? '').join('')).toBe('delta 1 delta 2 delta 3 delta 4');
    expect(payloads.at(-1)).toEqual({ job: { status: 'COMPLETED' }, textDelta: null });
  });
});
