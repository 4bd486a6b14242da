import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect as collectResults, wsClient } from '../support/ws-client.js';
import { createTeam, expectData, sendRequest } from './fixtures.js';
import { createGraphqlStack, type GraphqlStack } from './graphql-stack.js';

let stack: GraphqlStack;
let client: Client;

beforeAll(async () => {
  stack = await createGraphqlStack();
  client = wsClient((await stack.server.listen(0, '127.0.0.1')).url);
});
afterAll(async () => {
  await client.dispose();
  await stack.close();
});

type Event = { seq: number; job?: { id: string; status: string } };

/** Collects `teamEvents` after `afterSeq` until `done` says stop (or fails after 10 s). */
function collect(teamId: string, afterSeq: number, done: (events: readonly Event[]) => boolean): Promise<Event[]> {
  const query = `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
      seq ... on JobChanged { job { id status } } } }`;
  return collectResults(client, { query, variables: { teamId, afterSeq } }, (data) => data.teamEvents as Event, done);
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
