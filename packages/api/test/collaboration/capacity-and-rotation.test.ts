import { describe, expect, it } from 'vitest';
import { ask, type CollabStack, createPair, eventually, NO_DATA, stackPerFile, tokenFor } from './collab-stack.js';

let stack: CollabStack;
stackPerFile((built) => {
  stack = built;
});

const cancel = (id: string) => stack.cancel(id);

async function capacity(teamId: string): Promise<{ requests: number; receipts: number }> {
  const { data } = await stack.gql('query($id: ID!) { team(id: $id) { capacity { requests receipts } } }', {
    id: teamId,
  });
  return ((data ?? NO_DATA).team as { capacity: { requests: number; receipts: number } }).capacity;
}

describe('team capacity', () => {
  it('accepts 100 requests with their receipts, refuses the 101st, and still answers a retry', async () => {
    const team = await createPair(stack);
    const [ada, bob] = team.members;
    // Ada's first job waits for input: her handoffs then start chains of their own (no parent).
    const waiting = await ask(stack, team.id, ada.id, '!ask Which region?');
    await stack.waitFor(waiting, ['WAITING_INPUT']);
    const token = await tokenFor(stack, waiting);
    const sent: string[] = [];
    for (let i = 1; i <= 99; i += 1) {
      const answer = await stack.tool(token, 'send_member', {
        member_id: bob.id,
        text: `task ${i}`,
        request_id: `t${i}`,
      });
      expect(answer.value).toMatchObject({ id: expect.any(String) });
      sent.push((answer.value as { id: string }).id);
    }
    const over = await stack.tool(token, 'send_member', { member_id: bob.id, text: 'one more', request_id: 't100' });
    expect(over.code).toBe('REQUEST_LIMIT');
    const retry = await stack.tool(token, 'send_member', { member_id: bob.id, text: 'task 50', request_id: 't50' });
    expect((retry.value as { id: string }).id).toBe(sent[49]);
    const refused = await stack.gql(
      'mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }',
      { input: { teamId: team.id, memberIds: [bob.id], text: 'person', clientRequestId: 'p-101' } },
    );
    expect(refused.errors[0]?.extensions?.code).toBe('REQUEST_LIMIT');
    // Bob answers all 99; their receipts queue in Ada's conversation behind her waiting job.
    await eventually(async () => ((await capacity(team.id)).receipts === 99 ? true : undefined), '99 receipts', 60_000);
    await cancel(waiting);
    await eventually(
      async () => {
        const { data } = await stack.gql(
          'query($id: ID!) { team(id: $id) { jobs(first: 100, kind: RECEIPT, statuses: [COMPLETED]) { totalCount } } }',
          { id: team.id },
        );
        return ((data ?? NO_DATA).team as { jobs: { totalCount: number } }).jobs.totalCount === 99 ? true : undefined;
      },
      'every receipt delivered',
      60_000,
    );
    expect(await capacity(team.id)).toEqual({ requests: 100, receipts: 99 });
  }, 120_000);
});

describe('record rotation', () => {
  it('delivers a receipt to the requester after its request left the retained record', async () => {
    const team = await createPair(stack);
    const [ada, bob] = team.members;
    // Bob's conversation is held by a waiting job, so Ada's handoff queues behind it.
    const hold = await ask(stack, team.id, bob.id, '!ask hold on');
    await stack.waitFor(hold, ['WAITING_INPUT']);
    const root = await ask(stack, team.id, ada.id, '!handoff Bob !reply the finding');
    await stack.waitFor(root, ['COMPLETED']);
    const history = async (jobId: string) => {
      const { data } = await stack.gql(
        'query($id: ID!, $job: ID!) { team(id: $id) { history(filter: {jobId: $job}, limit: 20) { records { kind } } } }',
        { id: team.id, job: jobId },
      );
      return ((data ?? NO_DATA).team as { history: { records: { kind: string }[] } }).history.records;
    };
    const { data } = await stack.gql(
      'query($id: ID!) { team(id: $id) { jobs(kind: REQUEST, memberId: null, first: 10) { edges { node { id member { name } } } } } }',
      { id: team.id },
    );
    const handoff = (
      (data ?? NO_DATA).team as { jobs: { edges: { node: { id: string; member: { name: string } } }[] } }
    ).jobs.edges
      .map((e) => e.node)
      .find((node) => node.id !== root && node.id !== hold && node.member.name === 'Bob');
    if (!handoff) throw new Error('no handoff');
    expect(await history(handoff.id)).toEqual([{ kind: 'REQUEST' }]);
    // 55 more finished requests append 110 record messages: the handoff's announcement rotates out.
    let last = '';
    for (let i = 0; i < 55; i += 1) last = await ask(stack, team.id, ada.id, `!reply filler ${i}`);
    await stack.waitFor(last, ['COMPLETED'], 60_000);
    expect(await history(handoff.id)).toEqual([]);
    await cancel(hold);
    await stack.waitFor(handoff.id, ['COMPLETED']);
    const receipt = await eventually(async () => {
      const answer = await stack.gql('query($id: ID!) { job(id: $id) { receipt { id status result { text } } } }', {
        id: handoff.id,
      });
      const found = ((answer.data ?? NO_DATA).job as { receipt: { id: string; status: string } | null }).receipt;
      return found?.status === 'COMPLETED' ? found : undefined;
    }, 'receipt completed');
    expect(receipt).toMatchObject({ result: { text: 'receipt from Bob: the finding' } });
    const result = await stack.gql(
      'query($id: ID!, $job: ID!) { team(id: $id) { result(jobId: $job) { requestExcerpt result { available text } } } }',
      { id: team.id, job: handoff.id },
    );
    expect(((result.data ?? NO_DATA).team as { result: unknown }).result).toEqual({
      requestExcerpt: '!reply the finding',
      result: { available: true, text: 'the finding' },
    });
    expect(ada.id).toBeTruthy();
  }, 120_000);
});
