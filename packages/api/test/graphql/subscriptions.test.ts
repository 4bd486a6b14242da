import { asOwnerId } from '@agent-teams/core';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTeam, sendRequest, type TeamFixture } from './fixtures.js';
import { createGraphqlStack, type GraphqlStack, TOKENS } from './graphql-stack.js';

let stack: GraphqlStack;
let wsUrl: string;
const clients: Client[] = [];

beforeAll(async () => {
  stack = await createGraphqlStack();
  const { url } = await stack.server.listen(0, '127.0.0.1');
  wsUrl = `${url.replace('http', 'ws')}/graphql`;
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await stack.close();
});

function client(token: string): Client {
  const created = createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  clients.push(created);
  return created;
}

type Event = { __typename: string; seq: number; job?: { id: string; status: string } };

const TEAM_EVENTS = `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
  __typename seq team { id } ... on JobChanged { job { id status } } ... on RecordAppended { message { kind text } }
  ... on MemberChanged { member { name } } } }`;

/** Collects `teamEvents` until `done` says stop (or fails after 10 s). */
async function collect(
  c: Client,
  variables: Record<string, unknown>,
  done: (events: Event[]) => boolean,
): Promise<Event[]> {
  const events: Event[] = [];
  const iterator = c.iterate<{ teamEvents: Event }>({ query: TEAM_EVENTS, variables });
  const timeout = setTimeout(() => void iterator.return?.(), 10_000);
  try {
    for await (const result of iterator) {
      if (result.errors) throw new Error(JSON.stringify(result.errors));
      if (result.data) events.push(result.data.teamEvents);
      if (done(events)) break;
    }
  } finally {
    clearTimeout(timeout);
  }
  return events;
}

const completed = (jobId: string) => (events: Event[]) =>
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
    const refused = createClient({
      url: wsUrl,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: 'Bearer tok-mallory' },
      retryAttempts: 0,
    });
    clients.push(refused);
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
    const [jobId = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], '!sleep 1000\n!stream 3');
    const deltas: string[] = [];
    const iterator = client(TOKENS.alice).iterate<{ jobProgress: { job: { id: string }; textDelta: string | null } }>({
      query: 'subscription($id: ID!) { jobProgress(jobId: $id) { job { id } textDelta toolCall } }',
      variables: { id: jobId },
    });
    const reading = (async () => {
      for await (const result of iterator) {
        if (result.data?.jobProgress.textDelta) deltas.push(result.data.jobProgress.textDelta);
        if (deltas.length >= 3) break;
      }
    })();
    await stack.waitForListeners({ progress: 1 });
    await reading;
    expect(deltas).toHaveLength(3);
  });
});
