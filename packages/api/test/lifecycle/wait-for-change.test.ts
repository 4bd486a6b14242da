import { Limits } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, expectData, sendRequest, type TeamFixture } from '../graphql/fixtures.js';
import { createGraphqlStack, type GraphqlStack } from '../graphql/graphql-stack.js';
import { eventually } from '../support/test-app.js';

let stack: GraphqlStack;
beforeAll(async () => {
  stack = await createGraphqlStack();
});
afterAll(async () => stack.close());

const ids = (team: TeamFixture) => [String(team.members[0]?.id), String(team.members[1]?.id)] as const;
const STATUS = 'query($id: ID!) { node(id: $id) { ... on Member { status } } }';
const CANCEL = 'mutation($id: ID!) { cancelJob(input: { jobId: $id }) { job { status error } } }';

describe('wait_for_change through the scripted runtime', () => {
  it('pauses the turn (WAITING_CHANGE, member RUNNING) and resumes it on a team change with the changes', async () => {
    const team = await createTeam(stack);
    const [ada, bob] = ids(team);
    const [waiter = ''] = await sendRequest(stack, team.id, [ada], '!reply before\n!wait 60000\n!reply after');
    await stack.waitForJob(waiter, ['WAITING_CHANGE']);
    expect((await stack.gql(STATUS, { id: ada })).data?.node).toEqual({ status: 'RUNNING' });
    const [other = ''] = await sendRequest(stack, team.id, [bob], 'wake them');
    const done = await stack.waitForJob(waiter, ['COMPLETED']);
    const [before, line, after] = String((done.result as { text: string }).text).split('\n');
    expect([before, after]).toEqual(['before', 'after']);
    const result = JSON.parse(String(line)) as {
      timed_out: boolean;
      seq: number;
      changes: { kind: string; job_id?: string }[];
    };
    expect(result.timed_out).toBe(false);
    expect(result.changes.some((c) => c.kind === 'JOB_CHANGED' && c.job_id === other)).toBe(true);
    expect(result.changes.every((c) => c.job_id !== waiter)).toBe(true);
    // The compact JSON of the tool, exactly as the line shows it.
    expect(line).toBe(JSON.stringify(result));
  });

  it('admits nothing else into the waiting conversation: a request for the waiter runs after its wait ends', async () => {
    const team = await createTeam(stack);
    const [ada] = ids(team);
    const [waiter = ''] = await sendRequest(stack, team.id, [ada], '!wait 60000\n!sleep 50\n!reply resumed');
    await stack.waitForJob(waiter, ['WAITING_CHANGE']);
    const [next = ''] = await sendRequest(stack, team.id, [ada], 'next');
    const first = await stack.waitForJob(waiter, ['COMPLETED']);
    await stack.waitForJob(next, ['COMPLETED']);
    const times = async (id: string) =>
      expectData(await stack.gql('query($id: ID!) { job(id: $id) { startedAt finishedAt } }', { id })).job as {
        startedAt: string;
        finishedAt: string;
      };
    expect((await times(next)).startedAt >= (await times(waiter)).finishedAt).toBe(true);
    expect(String((first.result as { text: string }).text).endsWith('resumed')).toBe(true);
  });

  it('checks timeout_ms at n−1, n, n+1 of both limits and after_seq against the head', async () => {
    const team = await createTeam(stack);
    const [ada] = ids(team);
    const { min, max } = Limits.waitTimeoutMs;
    const refused = [min - 1, max + 1].map((ms) => `!wait ${ms}`);
    refused.push('!tool wait_for_change {"timeout_ms":10000,"after_seq":999999}');
    refused.push('!tool wait_for_change {"timeout_ms":"10000"}');
    const [bad = ''] = await sendRequest(stack, team.id, [ada], refused.join('\n'));
    const text = String(((await stack.waitForJob(bad, ['COMPLETED'])).result as { text: string }).text);
    expect(text.split('\n').map((l) => JSON.parse(l))).toEqual(
      refused.map(() => ({ error: { code: 'INVALID_INPUT' } })),
    );
    for (const ms of [min, min + 1, max - 1, max]) {
      const [job = ''] = await sendRequest(stack, team.id, [ada], `!wait ${ms}`);
      await stack.waitForJob(job, ['WAITING_CHANGE']);
      // Cancelling a waiting job ends it at once: its run already ended.
      const cancelled = await stack.gql(CANCEL, { id: job });
      expect(expectData(cancelled).cancelJob).toMatchObject({ job: { status: 'CANCELLED' } });
    }
  });
});

describe('wait_for_change deadlines', () => {
  it('ends a wait at its deadline on a server whose passes had found no waits before it began', async () => {
    // A turn first: its passes read the waits and find none, so this (SQLite, exclusive) server
    // stops reading them until a wait begins; the wait below must still be read and its timer set
    // (the safety net, which would also admit an expired wait, is an hour away here).
    const stack = await createGraphqlStack({ schedulerOptions: { safetyNetMs: 3_600_000 } });
    try {
      const team = await createTeam(stack);
      const [ada] = ids(team);
      const [warm = ''] = await sendRequest(stack, team.id, [ada], 'warm up');
      await stack.waitForJob(warm, ['COMPLETED']);
      const started = Date.now();
      const [waiter = ''] = await sendRequest(stack, team.id, [ada], `!wait ${Limits.waitTimeoutMs.min}\n!reply after`);
      await stack.waitForJob(waiter, ['WAITING_CHANGE']);
      const done = await eventually(
        async () => {
          const { data } = await stack.gql('query($id: ID!) { job(id: $id) { status result { text } } }', {
            id: waiter,
          });
          const job = data?.job as { status: string; result: { text: string } | null } | null;
          return job?.status === 'COMPLETED' ? job : undefined;
        },
        'the wait to end at its deadline',
        Limits.waitTimeoutMs.min + 10_000,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(Limits.waitTimeoutMs.min);
      const [line, after] = String(done.result?.text).split('\n');
      expect(JSON.parse(String(line))).toMatchObject({ timed_out: true, changes: [] });
      expect(after).toBe('after');
    } finally {
      await stack.close();
    }
  }, 30_000);
});
