import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerProcess } from '../cluster/server-process.js';
import { eventually } from '../collaboration/collab-stack.js';
import { teamInput } from '../graphql/fixtures.js';
import { RemoteA2aAgent } from './remote-a2a-agent.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-a2a-crash-'));
const database = join(dir, 'teams.sqlite');
const config = join(dir, 'config.json');
const TOKEN = 'tok-alice';
let remote: RemoteA2aAgent;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  remote = new RemoteA2aAgent();
  await remote.start();
  writeFileSync(
    config,
    JSON.stringify({
      auth: { tokens: { [TOKEN]: 'alice' } },
      agents: [
        { name: 'researcher', title: 'Research', runtime: 'scripted' },
        { name: 'analyst', title: 'Analyst', description: 'Runs elsewhere', runtime: 'a2a', url: remote.url },
      ],
      // The test polls as fast as it can; the limiter has its own tests.
      rateLimit: { perSecond: 100_000, burst: 1_000_000 },
    }),
  );
});
afterAll(async () => {
  for (const server of servers) await server.kill();
  await remote.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function start(name: string): Promise<ServerProcess> {
  const server = await ServerProcess.start({ name, database, config });
  servers.push(server);
  return server;
}

async function gql(server: ServerProcess, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data ?? {};
}

describe('a remote agent turn across a crash of the server (kill -9)', () => {
  it('follows the same remote task after a restart and never sends the turn again', async () => {
    const first = await start('before');
    const created = await gql(
      first,
      'mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id } } } }',
      {
        input: teamInput({
          members: [
            { name: 'Ada', agentId: 'researcher' },
            { name: 'Remy', agentId: 'analyst' },
          ],
        }),
      },
    );
    const team = (created.createTeam as { team: { id: string; members: { id: string }[] } }).team;
    const sent = await gql(
      first,
      'mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }',
      { input: { teamId: team.id, memberIds: [team.members[1]?.id], text: '!hold', clientRequestId: 'crash-1' } },
    );
    const jobId = (sent.sendRequest as { jobs: { id: string }[] }).jobs[0]?.id;
    const [taskId] = await eventually(async () => (remote.holding().length > 0 ? remote.holding() : undefined), 'hold');

    // Mid-turn: the remote task works, the server dies without a word.
    await first.kill();
    const second = await start('after');
    remote.release(taskId ?? '');
    const job = await eventually(
      async () => {
        const data = await gql(second, 'query($id: ID!) { job(id: $id) { status result { text } } }', { id: jobId });
        const found = data.job as { status: string; result: { text: string | null } };
        return found.status === 'COMPLETED' || found.status === 'FAILED' ? found : undefined;
      },
      'job finished after the restart',
      60_000,
    );

    expect(job).toEqual({ status: 'COMPLETED', result: { text: 'released' } });
    const sentToRemote = remote.received.filter(
      (message) => (message.metadata?.agentTeams as { jobId?: string } | undefined)?.jobId === jobId,
    );
    expect(sentToRemote.map((message) => message.taskId)).toEqual([taskId]);
  }, 180_000);
});
