import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ClusterTeam, createTeam, gqlData } from './cluster-client.js';
import { ClusterHarness, TOKENS } from './cluster-harness.js';
import type { ServerProcess } from './server-process.js';

let harness: ClusterHarness;
let s1: ServerProcess;
let s2: ServerProcess;

beforeAll(async () => {
  harness = await ClusterHarness.create('cluster_mailbox');
  // Started one after the other, so the harness knows each one's lease id.
  s1 = await harness.start();
  s2 = await harness.start();
}, 90_000);
afterAll(async () => harness?.dispose());
beforeEach(({ onTestFailed }) => harness.printOnFailure(onTestFailed));

const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { message { id } } }`;
const CONVERSATIONS = `query($id: ID!) { team(id: $id) { members { id conversation(first: 100) { edges { node {
  role text } } } mailbox { id } } } }`;

/** Waits until every job of the team finished. */
async function allFinished(team: ClusterTeam, timeout = 30_000): Promise<void> {
  await vi.waitFor(
    async () => {
      const jobs = await harness.observer.jobs([team.id]);
      expect(jobs.filter((job) => job.phase !== 'COMPLETED')).toEqual([]);
    },
    { timeout, interval: 50 },
  );
}

/** The MESSAGE jobs of a team, from the database. */
async function messageJobs(team: ClusterTeam) {
  return (await harness.observer.jobs([team.id])).filter((job) => job.kind === 'MESSAGE');
}

describe('the mailbox on two servers over one PostgreSQL database', () => {
  it('delivers follow-ups sent through one server exactly once, also when the other server runs the turn', {
    timeout: 120_000,
  }, async () => {
    const team = await createTeam(s1, TOKENS.alice, 'mailbox-cluster', 3);
    const memberIds = team.members.map((m) => m.id);
    const keys: string[] = [];
    for (let round = 0; round < 4; round += 1) {
      const key = `follow-${round}`;
      keys.push(key);
      const input = {
        teamId: team.id,
        memberIds,
        text: `!sleep 150\nround ${round}`,
        delivery: 'FOLLOW_UP',
        clientRequestId: key,
      };
      // Each round starts when the last one's turns finished, so its follow-ups queue turns of their own.
      await allFinished(team);
      const before = (await messageJobs(team)).length;
      await gqlData(s1, TOKENS.alice, SEND, { input });
      if (round % 2 === 1) continue;
      // Every other round, the sending server is paused at once: the turns it queued are the other's.
      s1.signal('SIGSTOP');
      try {
        await vi.waitFor(
          async () => {
            const jobs = (await messageJobs(team)).slice(before);
            expect(jobs.length).toBeGreaterThan(0);
            expect(jobs.filter((job) => job.phase === 'QUEUED')).toEqual([]);
          },
          { timeout: 20_000, interval: 50 },
        );
      } finally {
        s1.signal('SIGCONT');
      }
    }
    await allFinished(team, 60_000);
    await vi.waitFor(
      async () => {
        const data = await gqlData(s2, TOKENS.alice, CONVERSATIONS, { id: team.id });
        expect((data.team.members as { mailbox: unknown[] }[]).every((m) => m.mailbox.length === 0)).toBe(true);
      },
      { timeout: 60_000, interval: 100 },
    );
    const held = new Set((await messageJobs(team)).map((job) => job.lease_server));
    expect(held.has(harness.leaseIdOf(s2))).toBe(true);
    const data = await gqlData(s1, TOKENS.alice, CONVERSATIONS, { id: team.id });
    for (const member of data.team.members as { id: string; conversation: { edges: { node: { text: string } }[] } }[]) {
      const texts = member.conversation.edges.map((edge) => edge.node.text);
      for (const key of keys) {
        const entries = texts.filter((text) => text?.startsWith(`Team message ${key} from person:`));
        expect({ member: member.id, key, entries: entries.length }).toEqual({ member: member.id, key, entries: 1 });
      }
    }
  });
});
