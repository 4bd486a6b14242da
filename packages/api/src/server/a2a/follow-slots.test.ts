import { type ClientRequest, request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createTeam, sendRequest } from '../../../test/graphql/fixtures.js';
import { TOKENS } from '../../../test/graphql/graphql-stack.js';
import { send } from '../../../test/http/http-client.js';
import { until } from '../../../test/live/live-clients.js';
import { useLiveStack } from '../../../test/live/live-stack.js';
import { MAX_A2A_FOLLOWS_PER_OWNER } from './follow-slots.js';

// No scheduler: the jobs stay QUEUED, so their streams stay open.
const live = useLiveStack();

const headers = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  'a2a-version': '1.0',
});

/** A task of `token`'s owner that stays open: its member's A2A URL and the job id. */
async function openTask(token: string): Promise<{ url: string; jobId: string; teamId: string }> {
  const team = await createTeam(live.stack, token);
  const member = team.members[0]?.id as string;
  const [jobId] = await sendRequest(live.stack, team.id, [member], 'stay queued', token);
  return { url: `${live.base}/a2a/${team.id}/${member}`, jobId: jobId as string, teamId: team.id };
}

/** Opens a `SubscribeToTask` stream; resolves with its first chunk once the SSE body began. */
function subscribe(url: string, jobId: string, token: string): { request: ClientRequest; first: Promise<string> } {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: jobId } });
  let request!: ClientRequest;
  const first = new Promise<string>((resolve, reject) => {
    request = httpRequest(url, { method: 'POST', headers: headers(token), agent: false }, (response) => {
      response.once('data', (chunk: Buffer) => resolve(`${response.headers['content-type']} ${chunk}`));
      response.on('error', () => {});
    });
    request.on('error', reject);
    request.end(body);
  });
  return { request, first };
}

describe('A2A follows per owner', () => {
  it(`holds ${MAX_A2A_FOLLOWS_PER_OWNER} streams open, refuses the next with SUBSCRIPTION_LIMIT, and frees a slot when a client leaves`, async () => {
    const alice = await openTask(TOKENS.alice);
    const streams = Array.from({ length: MAX_A2A_FOLLOWS_PER_OWNER }, () =>
      subscribe(alice.url, alice.jobId, TOKENS.alice),
    );
    for (const stream of streams) expect(await stream.first).toMatch(/^text\/event-stream data: .*"task"/);

    const refused = subscribe(alice.url, alice.jobId, TOKENS.alice);
    const answer = await refused.first;
    expect(answer).toMatch(/^application\/json /);
    expect(answer).toContain('"code":"SUBSCRIPTION_LIMIT"');
    // A blocking send is refused the same, before its request is created.
    const blocking = await send(alice.url, {
      headers: headers(TOKENS.alice),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'SendMessage',
        params: { message: { messageId: 'blocked', role: 'ROLE_USER', parts: [{ text: 'never created' }] } },
      }),
    });
    expect(blocking.body.toString()).toContain('SUBSCRIPTION_LIMIT');
    const jobs = await live.stack.gql(
      'query($t: ID!) { team(id: $t) { jobs(first: 20) { edges { node { text } } } } }',
      { t: alice.teamId },
      TOKENS.alice,
    );
    expect(JSON.stringify(jobs)).toContain('stay queued');
    expect(JSON.stringify(jobs)).not.toContain('never created');
    // Reads are not follows, and another owner is not affected.
    const read = await send(alice.url, {
      headers: headers(TOKENS.alice),
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: alice.jobId } }),
    });
    expect(read.body.toString()).toContain('TASK_STATE_SUBMITTED');
    const bob = await openTask(TOKENS.bob);
    const bobStream = subscribe(bob.url, bob.jobId, TOKENS.bob);
    expect(await bobStream.first).toMatch(/^text\/event-stream /);

    // Clients that go away give their slots back.
    for (const stream of streams.slice(0, 2)) stream.request.destroy();
    let again: ReturnType<typeof subscribe> | null = null;
    await until(async () => {
      again?.request.destroy();
      again = subscribe(alice.url, alice.jobId, TOKENS.alice);
      return (await again.first).startsWith('text/event-stream');
    }, 'a slot freed by a client that left');
    for (const stream of [...streams, bobStream]) stream.request.destroy();
    (again as ReturnType<typeof subscribe> | null)?.request.destroy();
  }, 60_000);
});
