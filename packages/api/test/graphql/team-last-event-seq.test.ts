import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTeam, expectData, sendRequest } from './fixtures.js';
import { createGraphqlStack, type GraphqlStack, TOKENS } from './graphql-stack.js';

let stack: GraphqlStack;
let client: Client;

beforeAll(async () => {
  stack = await createGraphqlStack();
  const { url } = await stack.server.listen(0, '127.0.0.1');
  client = createClient({
    url: `${url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${TOKENS.alice}` },
    retryAttempts: 0,
  });
});
afterAll(async () => {
  await client.dispose();
  await stack.close();
});

type Event = { seq: number; job?: { id: string; status: string } };

/** Collects `teamEvents` after `afterSeq` until `done` says stop (or fails after 10 s). */
async function collect(teamId: string, afterSeq: number, done: (events: Event[]) => boolean): Promise<Event[]> {
  const events: Event[] = [];
  const iterator = client.iterate<{ teamEvents: Event }>({
    query: `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
      seq ... on JobChanged { job { id status } } } }`,
    variables: { teamId, afterSeq },
  });
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

async function lastEventSeq(teamId: string): Promise<number> {
  const data = expectData(await stack.gql('query($id: ID!) { team(id: $id) { lastEventSeq } }', { id: teamId }));
  return (data.team as { lastEventSeq: number }).lastEventSeq;
}

describe('Team.lastEventSeq', () => {
  it("is the seq of the team's newest event, so afterSeq set to it skips the replay", async () => {
    const team = await createTeam(stack);
    const head = await lastEventSeq(team.id);
    expect(head).toBeGreaterThan(0);
    // The log from the start ends exactly at the head: nothing newer, nothing missing.
    const replay = await collect(team.id, 0, (events) => events.length === head);
    expect(replay.map((event) => event.seq)).toEqual(Array.from({ length: head }, (_, i) => i + 1));

    const [jobId = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], '!sleep 200');
    const live = await collect(team.id, head, (events) =>
      events.some((event) => event.job?.id === jobId && event.job.status === 'COMPLETED'),
    );
    expect(live[0]?.seq).toBe(head + 1);
    expect(live.map((event) => event.seq)).toEqual(live.map((_, i) => head + 1 + i));
    expect(await lastEventSeq(team.id)).toBeGreaterThanOrEqual(live.at(-1)?.seq ?? Number.POSITIVE_INFINITY);
  });

  it("counts each team's events separately", async () => {
    const a = await createTeam(stack);
    const b = await createTeam(stack);
    const [aBefore, bBefore] = [await lastEventSeq(a.id), await lastEventSeq(b.id)];
    const [jobId = ''] = await sendRequest(stack, a.id, [String(a.members[0]?.id)], 'hello');
    await stack.waitForJob(jobId, ['COMPLETED']);
    expect(await lastEventSeq(a.id)).toBeGreaterThan(aBefore);
    expect(await lastEventSeq(b.id)).toBe(bBefore);
  });
});
