import { describe, expect, it } from 'vitest';
import { ask, type CollabStack, createPair, eventually, NO_DATA, stackPerFile, tokenFor } from './collab-stack.js';

let stack: CollabStack;
stackPerFile((built) => {
  stack = built;
});

const JOBS = `query($id: ID!) { team(id: $id) { capacity { requests receipts }
  jobs(first: 100) { edges { node { id kind status text error rootId
    member { name } requester { member { name } conversationId } parent { id kind } receipt { id status } } } } } }`;

interface JobRow {
  id: string;
  kind: string;
  status: string;
  text: string;
  error: string | null;
  rootId: string;
  member: { name: string } | null;
  requester: { member: { name: string } | null; conversationId: string | null };
  parent: { id: string; kind: string } | null;
  receipt: { id: string; status: string } | null;
}

async function jobsOf(teamId: string) {
  const { data } = await stack.gql(JOBS, { id: teamId });
  const team = (data ?? NO_DATA).team as {
    capacity: { requests: number; receipts: number };
    jobs: { edges: { node: JobRow }[] };
  };
  return { capacity: team.capacity, jobs: team.jobs.edges.map((edge) => edge.node) };
}

/** `!handoff` directives alternating between the two members, `hops` deep. */
function nestedHandoffs(hops: number): string {
  let text = '!reply done';
  for (let i = 0; i < hops; i += 1) text = `!handoff ${i % 2 === 0 ? 'Ada' : 'Bob'} ${text}`;
  return text;
}

describe('a handoff chain through the real server and the scripted runtime', () => {
  it('accepts 12 requests in one chain and refuses the 13th with REQUEST_LIMIT', async () => {
    const team = await createPair(stack);
    const ada = team.members[0] as { id: string };
    // The root plus 12 nested handoffs: the 12th handoff would be the chain's 13th request.
    const root = await ask(stack, team.id, ada.id, nestedHandoffs(12));
    const jobs = await eventually(async () => {
      const { jobs } = await jobsOf(team.id);
      const requests = jobs.filter((j) => j.kind === 'REQUEST');
      const settled = jobs.every((j) => ['COMPLETED', 'FAILED'].includes(j.status));
      return requests.length === 12 && settled && jobs.length === 23 ? jobs : undefined;
    }, '12 requests and their 11 receipts settled');
    const requests = jobs.filter((j) => j.kind === 'REQUEST');
    expect(requests.every((j) => j.rootId === root)).toBe(true);
    const last = requests.at(-1) as JobRow;
    expect(last.status).toBe('FAILED');
    expect(last.error).toContain('REQUEST_LIMIT');
    expect(requests.slice(0, -1).every((j) => j.status === 'COMPLETED')).toBe(true);
    expect((await jobsOf(team.id)).capacity).toEqual({ requests: 12, receipts: 11 });
  });

  it('exposes the whole route: requester, parent, rootId and the receipt back to the asker', async () => {
    const team = await createPair(stack);
    const [ada, bob] = team.members;
    const root = await ask(stack, team.id, ada.id, '!handoff Bob !reply the finding');
    const { jobs } = await eventually(async () => {
      const state = await jobsOf(team.id);
      return state.jobs.length === 3 && state.jobs.every((j) => j.status === 'COMPLETED') ? state : undefined;
    }, 'handoff and receipt completed');
    const [first, handoff, receipt] = jobs as [JobRow, JobRow, JobRow];
    expect(first).toMatchObject({ id: root, kind: 'REQUEST', parent: null, requester: { member: null } });
    expect(first.receipt).toBeNull();
    expect(handoff).toMatchObject({
      kind: 'REQUEST',
      text: '!reply the finding',
      member: { name: 'Bob' },
      requester: { member: { name: 'Ada' } },
      parent: { id: root, kind: 'REQUEST' },
      rootId: root,
      receipt: { id: receipt.id, status: 'COMPLETED' },
    });
    expect(handoff.requester.conversationId).not.toBeNull();
    expect(receipt).toMatchObject({
      kind: 'RECEIPT',
      member: { name: 'Ada' },
      parent: { id: handoff.id, kind: 'REQUEST' },
      rootId: root,
      receipt: null,
    });
    const done = await stack.waitFor(receipt.id, ['COMPLETED']);
    expect(done.result).toEqual({ text: 'receipt from Bob: the finding' });
    expect(bob.id).toBeTruthy();
  });

  it('returns the original job for a retried request_id and refuses other content (IDEMPOTENCY_CONFLICT)', async () => {
    const team = await createPair(stack);
    const [ada, bob] = team.members;
    const holder = await ask(stack, team.id, ada.id, '!sleep 600000');
    await stack.waitFor(holder, ['RUNNING']);
    const token = await tokenFor(stack, holder);
    const first = await stack.tool(token, 'send_member', { member_id: bob.id, text: 'check it', request_id: 'r-1' });
    expect(first.value).toMatchObject({ status: 'QUEUED' });
    const again = await stack.tool(token, 'send_member', { member: 'Bob', text: 'check it', request_id: 'r-1' });
    expect((again.value as { id: string }).id).toBe((first.value as { id: string }).id);
    const other = await stack.tool(token, 'send_member', { member_id: bob.id, text: 'else', request_id: 'r-1' });
    expect(other.code).toBe('IDEMPOTENCY_CONFLICT');
    const elsewhere = await stack.tool(token, 'send_member', { member_id: ada.id, text: 'x', request_id: 'r-2' });
    expect(elsewhere.code).toBe('SELF_REQUEST');
    const { capacity, jobs } = await jobsOf(team.id);
    expect(capacity.requests).toBe(2);
    const handoff = jobs.find((j) => j.id === (first.value as { id: string }).id);
    expect(handoff?.parent?.id).toBe(holder);
    await stack.gql('mutation($id: ID!) { cancelJob(input: {jobId: $id}) { job { id } } }', { id: holder });
  });

  it('refuses a ping-pong handoff that repeats an ancestor (HANDOFF_LOOP) and accepts a new task', async () => {
    const team = await createPair(stack);
    const [ada, bob] = team.members;
    const hold = '!sleep 600000';
    const j0 = await ask(stack, team.id, ada.id, hold);
    await stack.waitFor(j0, ['RUNNING']);
    const h1 = await stack.tool(await tokenFor(stack, j0), 'send_member', {
      member_id: bob.id,
      text: hold,
      request_id: 'p1',
    });
    const h1Id = (h1.value as { id: string }).id;
    await stack.waitFor(h1Id, ['RUNNING']);
    const h2 = await stack.tool(await tokenFor(stack, h1Id), 'send_member', {
      member_id: ada.id,
      text: hold,
      request_id: 'p2',
    });
    const h2Id = (h2.value as { id: string }).id;
    // Ada's conversation runs h2 once j0 is gone.
    await stack.gql('mutation($id: ID!) { cancelJob(input: {jobId: $id}) { job { id } } }', { id: j0 });
    await stack.waitFor(h2Id, ['RUNNING']);
    const token = await tokenFor(stack, h2Id);
    const loop = await stack.tool(token, 'send_member', { member_id: bob.id, text: hold, request_id: 'p3' });
    expect(loop.code).toBe('HANDOFF_LOOP');
    const fresh = await stack.tool(token, 'send_member', {
      member_id: bob.id,
      text: '!reply new task',
      request_id: 'p4',
    });
    expect(fresh.value).toMatchObject({ status: 'QUEUED' });
    for (const id of [h1Id, h2Id]) {
      await stack.gql('mutation($id: ID!) { cancelJob(input: {jobId: $id}) { job { id } } }', { id });
    }
  });
});
