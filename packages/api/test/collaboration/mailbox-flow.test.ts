import { TeamStatus } from '@agent-teams/core';
import type { Client } from 'graphql-ws';
import { afterAll, describe, expect, it } from 'vitest';
import type { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { collect, wsClient } from '../support/ws-client.js';
import {
  ask,
  type CollabStack,
  createPair,
  eventually,
  NO_DATA,
  OWNER_TOKENS,
  type PairTeam,
  pairPerFile,
} from './collab-stack.js';

let stack: CollabStack;
let team: PairTeam;
let client: Client;
pairPerFile(
  (fixture) => {
    stack = fixture.stack;
    team = fixture.team;
    client = wsClient(fixture.url);
  },
  { listen: true },
);
afterAll(async () => client.dispose());

let counter = 0;
async function sendMessage(memberIds: string[], text: string, delivery: 'QUIET' | 'FOLLOW_UP') {
  counter += 1;
  const answer = await stack.gql(
    `mutation($input: SendMessageInput!) { sendMessage(input: $input) {
      message { id text delivery from { name } to { name } } } }`,
    { input: { teamId: team.id, memberIds, text, delivery, clientRequestId: `msg-${counter}` } },
  );
  if (answer.errors.length > 0) throw new Error(JSON.stringify(answer.errors));
  return ((answer.data ?? NO_DATA).sendMessage as { message: { id: string } }).message;
}

async function conversationOf(memberId: string): Promise<{ role: string; text: string | null }[]> {
  const { data } = await stack.gql(
    'query($id: ID!) { node(id: $id) { ... on Member { conversation(first: 100) { edges { node { role text } } } } } }',
    { id: memberId },
  );
  const member = (data ?? NO_DATA).node as { conversation: { edges: { node: { role: string; text: string } }[] } };
  return member.conversation.edges.map((edge) => edge.node);
}

async function messageJobs(memberName: string) {
  const { data } = await stack.gql(
    'query($id: ID!) { team(id: $id) { jobs(first: 100, kind: MESSAGE) { edges { node { id status member { name } result { text } } } } } }',
    { id: team.id },
  );
  const jobs = ((data ?? NO_DATA).team as { jobs: { edges: { node: Record<string, unknown> }[] } }).jobs.edges;
  return jobs.map((edge) => edge.node).filter((job) => (job.member as { name: string }).name === memberName);
}

describe('the mailbox through the real server and the scripted runtime', () => {
  it('starts a MESSAGE turn for a follow-up, which receives the message once and answers "messages: …"', async () => {
    const bob = team.members[1];
    const message = await sendMessage([bob.id], 'status please', 'FOLLOW_UP');
    const [job] = await eventually(async () => {
      const jobs = await messageJobs('Bob');
      return jobs.length === 1 && jobs[0]?.status === 'COMPLETED' ? jobs : undefined;
    }, 'the MESSAGE turn completed');
    expect(job?.result).toEqual({ text: 'messages: status please' });
    const entries = (await conversationOf(bob.id)).filter((m) => m.text?.startsWith('Team message'));
    expect(entries).toEqual([{ role: 'USER', text: `Team message msg-${counter} from person:\nstatus please` }]);
    const { data } = await stack.gql(
      'query($id: ID!) { team(id: $id) { messages { edges { node { id } } } members { name mailbox { id } } } }',
      { id: team.id },
    );
    const read = (data ?? NO_DATA).team as { messages: { edges: { node: { id: string } }[] }; members: unknown[] };
    expect(read.messages.edges.map((edge) => edge.node.id)).toContain(message.id);
    expect(read.members).toEqual([
      { name: 'Ada', mailbox: [] },
      { name: 'Bob', mailbox: [] },
    ]);
    // A message is a Node of its owner only.
    const node = 'query($id: ID!) { node(id: $id) { __typename ... on TeamMessage { text to { name } } } }';
    expect((await stack.gql(node, { id: message.id })).data?.node).toEqual({
      __typename: 'TeamMessage',
      text: 'status please',
      to: [{ name: 'Bob' }],
    });
    expect((await stack.gql(node, { id: message.id }, OWNER_TOKENS.bob)).data?.node).toBeNull();
  });

  it('keeps a quiet message in the mailbox until the member’s next turn, then delivers it before the task', async () => {
    const ada = team.members[0];
    const message = await sendMessage([ada.id], 'FYI: the budget doubled', 'QUIET');
    const { data } = await stack.gql('query($id: ID!) { node(id: $id) { ... on Member { mailbox { id text } } } }', {
      id: ada.id,
    });
    expect((data ?? NO_DATA).node).toEqual({ mailbox: [{ id: message.id, text: 'FYI: the budget doubled' }] });
    expect(await messageJobs('Ada')).toEqual([]);
    await stack.waitFor(await ask(stack, team.id, ada.id, '!reply noted'), ['COMPLETED']);
    const texts = (await conversationOf(ada.id)).map((m) => m.text);
    const delivered = texts.indexOf(`Team message msg-${counter} from person:\nFYI: the budget doubled`);
    expect(delivered).toBeGreaterThanOrEqual(0);
    expect(texts[delivered + 1]).toBe('!reply noted');
  });

  it('lets a member message another with !tool team_message, and replays both events by seq', async () => {
    const [ada, bob] = team.members;
    const { data } = await stack.gql('query($id: ID!) { team(id: $id) { lastEventSeq } }', { id: team.id });
    const head = ((data ?? NO_DATA).team as { lastEventSeq: number }).lastEventSeq;
    const args = { to: ['Bob'], text: '!reply on it', delivery: 'follow_up', message_id: 'ada-1' };
    const jobId = await ask(stack, team.id, ada.id, `!tool team_message ${JSON.stringify(args)}`);
    const done = await stack.waitFor(jobId, ['COMPLETED']);
    expect(JSON.parse(String((done.result as { text: string }).text))).toEqual({
      message_id: 'ada-1',
      recipients: [{ member: 'Bob', state: 'queued' }],
    });
    await eventually(async () => {
      const jobs = await messageJobs('Bob');
      return jobs.some((job) => (job.result as { text: string } | null)?.text === 'on it') ? jobs : undefined;
    }, "Bob's message turn ran the directive in Ada's message");
    const query = `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
      seq __typename ... on MessageSent { message { from { name } to { name } text } }
      ... on MessageDelivered { message { text } member { name } job { kind } } } }`;
    type Event = { seq: number; __typename: string; message?: unknown; member?: unknown; job?: unknown };
    const events = await collect(
      client,
      { query, variables: { teamId: team.id, afterSeq: head } },
      (value) => value.teamEvents as Event,
      (seen) => seen.some((e) => e.__typename === 'MessageDelivered'),
    );
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => head + 1 + i));
    const message = { from: { name: 'Ada' }, to: [{ name: 'Bob' }], text: '!reply on it' };
    expect(events.find((e) => e.__typename === 'MessageSent')).toMatchObject({ message });
    expect(events.find((e) => e.__typename === 'MessageDelivered')).toMatchObject({
      message: { text: '!reply on it' },
      member: { name: bob.name },
      job: { kind: 'MESSAGE' },
    });
  });

  it('refuses a message to a member of another team and bad input with the contract codes', async () => {
    const codeOf = async (input: Record<string, unknown>) => {
      const answer = await stack.gql(
        'mutation($input: SendMessageInput!) { sendMessage(input: $input) { message { id } } }',
        { input: { teamId: team.id, text: 'x', delivery: 'QUIET', clientRequestId: 'bad', ...input } },
      );
      return answer.errors[0]?.extensions?.code;
    };
    expect(await codeOf({ memberIds: ['member_nope'] })).toBe('NOT_FOUND');
    expect(await codeOf({ memberIds: [team.members[0].id], text: ' ' })).toBe('INVALID_INPUT');
  });

  it('refuses a message to a retired member (MEMBER_RETIRED) and to a closed team (TEAM_CLOSED)', async () => {
    const other = await createPair(stack);
    const [ada, bob] = other.members;
    const store = stack.store as KyselyTeamStore;
    await store.db
      .updateTable('members')
      .set({ retired_at: '2026-01-01T00:00:00.000Z' })
      .where('id', '=', ada.id)
      .execute();
    const send = async (memberIds: string[], key: string) =>
      (
        await stack.gql('mutation($input: SendMessageInput!) { sendMessage(input: $input) { message { id } } }', {
          input: { teamId: other.id, memberIds, text: 'hi', delivery: 'FOLLOW_UP', clientRequestId: key },
        })
      ).errors[0]?.extensions?.code;
    expect(await send([bob.id, ada.id], 'to-retired')).toBe('MEMBER_RETIRED');
    expect(await send([bob.id], 'to-bob')).toBeUndefined();
    await store.setTeamStatus(other.id as never, TeamStatus.CLOSED, new Date().toISOString());
    expect(await send([bob.id], 'after-close')).toBe('TEAM_CLOSED');
    // A retry of what was accepted before the close still answers it.
    expect(await send([bob.id], 'to-bob')).toBeUndefined();
  });
});
