import { asOwnerId } from '@agent-teams/core';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect as collectResults, wsClient } from '../support/ws-client.js';
import { createTeam, sendRequest, type TeamFixture } from './fixtures.js';
import { createGraphqlStack, type GraphqlStack, TOKENS } from './graphql-stack.js';

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

function client(token: string): Client {
  const created = wsClient(baseUrl, token);
  clients.push(created);
  return created;
}

type Event = { __typename: string; seq: number; job?: { id: string; status: string } };

const TEAM_EVENTS = `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
  __typename seq team { id } ... on JobChanged { job { id status } } ... on RecordAppended { message { kind text } }
  ... on MemberChanged { member { name } } } }`;

/** Collects `teamEvents` until `done` says stop (or fails after 10 s). */
function collect(c: Client, variables: Record<string, unknown>, done: (events: readonly Event[]) => boolean) {
  return collectResults(c, { query: TEAM_EVENTS, variables }, (data) => data.teamEvents as Event, done);
}

const completed = (jobId: string) => (events: readonly Event[]) =>
  events.some((event) => event.job?.id === jobId && event.job.status === 'COMPLETED');

describe('teamEvents over graphql-ws', () => {
  let team: TeamFixture;
  let jobId: string;
  let firstRun: Event[];

  it('replays from afterSeq 0 and follows a request live, in seq order, without gaps', async () => {
    team = await createTeam(stack);
    // The sleep keeps the job running while the subscription starts, so its end arrives live.
    [jobId = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], '!sleep 300');
    firstRun = await collect(client(TOKENS.alice), { teamId: team.id, afterSeq: 0 }, completed(jobId));

    const seqs = firstRun.map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const kinds = new Set(firstRun.map((event) => event.__typename));
    expect([...kinds].sort()).toEqual(['JobChanged', 'MemberChanged', 'RecordAppended', 'TeamChanged']);
    const statuses = firstRun.filter((event) => event.job?.id === jobId).map((event) => event.job?.status);
    expect(statuses.at(-1)).toBe('COMPLETED');
  });

  it('resumes after a given seq with exactly the events that followed it', async () => {
    const resumeAfter = Math.floor(firstRun.length / 2);
    const replay = await collect(client(TOKENS.alice), { teamId: team.id, afterSeq: resumeAfter }, (events) =>
      events.some((event) => event.seq === firstRun.at(-1)?.seq),
    );
    expect(replay.map((event) => event.seq)).toEqual(firstRun.slice(resumeAfter).map((event) => event.seq));
  });

  it('delivers every event once, in order, when events commit while the replay pages run', async () => {
    const busy = await createTeam(stack);
    const events: Event[] = [];
    const iterator = client(TOKENS.alice).iterate<{ teamEvents: Event }>({
      query: TEAM_EVENTS,
      variables: { teamId: busy.id, afterSeq: 0 },
    });
    let lastSeq = Number.POSITIVE_INFINITY;
    const reading = (async () => {
      for await (const result of iterator) {
        if (result.data) events.push(result.data.teamEvents);
        if (events.length >= lastSeq) break;
      }
    })();
    // 40 requests (hundreds of events, several replay pages) committing while the replay reads.
    const jobIds = (
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          sendRequest(stack, busy.id, [String(busy.members[i % 2]?.id)], `task ${i}`),
        ),
      )
    ).flat();
    for (const id of jobIds) await stack.waitForJob(id, ['COMPLETED']);
    const team = await stack.core.teams.get(asOwnerId('alice'), busy.id);
    lastSeq = team?.lastEventSeq ?? 0;
    expect(lastSeq).toBeGreaterThan(100);
    if (events.length < lastSeq) await reading;
    else void iterator.return?.();
    expect(events.map((event) => event.seq)).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
  });

  it("answers NOT_FOUND for another owner's team", async () => {
    const error = await collect(client(TOKENS.bob), { teamId: team.id }, () => true).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const [first] = JSON.parse((error as Error).message) as { extensions?: { code?: string } }[];
    expect(first?.extensions?.code).toBe('NOT_FOUND');
  });

  it('refuses a connection with an unknown token (close code 4403)', async () => {
    const refused = client('tok-mallory');
    const closeCode = await new Promise<number>((resolve) => {
      refused.on('closed', (event) => resolve((event as { code: number }).code));
      refused.subscribe({ query: '{ __typename }' }, { next: () => {}, error: () => {}, complete: () => {} });
    });
    expect(closeCode).toBe(4403);
  });
});

describe('inboxChanged and jobProgress', () => {
  it('pushes a job entering WAITING_INPUT to its owner', async () => {
    const team = await createTeam(stack);
    const c = client(TOKENS.alice);
    const received: { id: string; status: string }[] = [];
    const iterator = c.iterate<{ inboxChanged: { id: string; status: string } }>({
      query: 'subscription { inboxChanged { id status input { kind question } } }',
    });
    const reading = (async () => {
      for await (const result of iterator) {
        if (result.data) received.push(result.data.inboxChanged);
        if (received.length >= 1) break;
      }
    })();
    await stack.waitForListeners({ inbox: 1 });
    const [jobId = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], '!ask Which region?');
    await reading;
    expect(received).toEqual([
      { id: jobId, status: 'WAITING_INPUT', input: { kind: 'CLARIFICATION', question: 'Which region?' } },
    ]);
  });

  it('streams text deltas of a running job', async () => {
    const team = await createTeam(stack);
    // The job waits for an answer until the subscription is set up; the answer streams.
    const [jobId = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], '!ask Go?');
    await stack.waitForJob(jobId, ['WAITING_INPUT']);
    const reading = collectResults(
      client(TOKENS.alice),
      {
        query: 'subscription($id: ID!) { jobProgress(jobId: $id) { job { id } textDelta toolCall } }',
        variables: { id: jobId },
      },
      (data) => (data.jobProgress as { textDelta: string | null }).textDelta,
      (deltas) => deltas.length >= 3,
    );
    await stack.waitForListeners({ progress: 1 });
    await stack.core.jobs.respond(asOwnerId('alice'), { jobId, response: '!stream 3', clientRequestId: 'stream' });
    expect(await reading).toEqual(['delta 1', ' delta 2', ' delta 3']);
  });
});
