import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../collaboration/collab-stack.js';
import { createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';

let stack: GraphqlStack;
let baseUrl: string;

beforeAll(async () => {
  stack = await createGraphqlStack();
  ({ url: baseUrl } = await stack.server.listen(0, '127.0.0.1'));
});
afterAll(() => stack.close());

describe('an A2A stream whose client leaves', () => {
  it('stops following the team feed', async () => {
    const created = await stack.gql(
      `mutation { createTeam(input: { clientRequestId: "release", name: "R", goal: "G",
        members: [{ name: "Ada", agentId: "researcher" }, { name: "Bob", agentId: "writer" }] }) { team { id members { id } } } }`,
    );
    const payload = created.data?.createTeam as { team: { id: string; members: { id: string }[] } } | undefined;
    const team = payload?.team;
    if (!team) throw new Error(JSON.stringify(created.errors));
    expect(stack.hubListeners()).toBe(0);
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}/a2a/${team.id}/${team.members[0]?.id}`, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${TOKENS.alice}`,
        'content-type': 'application/json',
        'a2a-version': '1.0',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'm-release', role: 'ROLE_USER', parts: [{ text: '!sleep 60000' }] } },
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = response.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toContain('"task"');
    await eventually(async () => (stack.hubListeners() === 1 ? true : undefined), 'the feed follows the team');
    controller.abort();
    await eventually(async () => (stack.hubListeners() === 0 ? true : undefined), 'the feed is released', 5_000);
  });
});
