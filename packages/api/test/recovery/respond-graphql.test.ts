import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, expectData, sendRequest } from '../graphql/fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';

let stack: GraphqlStack;
beforeAll(async () => {
  stack = await createGraphqlStack();
});
afterAll(async () => stack.close());

const RESPOND = `mutation($input: RespondInput!) { respond(input: $input) { job { id status } } }`;
const INBOX = `{ viewer { inbox { totalCount edges { node { id status input { kind requestId question payload } } } } } }`;
const JOB = `query($id: ID!) { job(id: $id) { status input { requestId } result { text } } }`;

async function waiting(text: string): Promise<{ id: string; requestId: string }> {
  const team = await createTeam(stack);
  const [id = ''] = await sendRequest(stack, team.id, [String(team.members[0]?.id)], text);
  await stack.waitForJob(id, ['WAITING_INPUT']);
  const job = expectData(await stack.gql(JOB, { id })).job as { input: { requestId: string } };
  return { id, requestId: job.input.requestId };
}

describe('respond over GraphQL', () => {
  it('answers a clarification, shows RESUMING, and ends with the continued answer', async () => {
    const { id, requestId } = await waiting('!ask Which region?');
    const inbox = expectData(await stack.gql(INBOX)).viewer as { inbox: { edges: { node: { id: string } }[] } };
    expect(inbox.inbox.edges.map((e) => e.node.id)).toContain(id);
    const answered = await stack.gql(RESPOND, {
      input: { jobId: id, response: 'EU', clientRequestId: 'r1', inputRequestId: requestId },
    });
    expect(['RESUMING', 'RUNNING', 'COMPLETED']).toContain(
      (expectData(answered).respond as { job: { status: string } }).job.status,
    );
    const done = await stack.waitForJob(id, ['COMPLETED']);
    expect(done.result).toMatchObject({ text: 'answered: EU' });
  });

  it('maps refusals to extensions.code: INVALID_RESPONSE, INPUT_CHANGED, NOT_WAITING_INPUT, NOT_FOUND', async () => {
    const { id } = await waiting('!ask Which region?');
    const respond = (input: Record<string, unknown>, token?: string) =>
      stack.gql(RESPOND, { input: { jobId: id, clientRequestId: 'k', ...input } }, token);
    expect(codes(await respond({ response: 'x'.repeat(4001) }))).toEqual(['INVALID_RESPONSE']);
    expect(codes(await respond({ response: { not: 'text' } }))).toEqual(['INVALID_RESPONSE']);
    expect(codes(await respond({ response: 'ok', inputRequestId: 'another' }))).toEqual(['INPUT_CHANGED']);
    expect(codes(await respond({ response: 'ok' }, TOKENS.bob))).toEqual(['NOT_FOUND']);
    // What no store can keep in the answer is the answer's own refusal (the operation guard
    // refuses it elsewhere as INVALID_INPUT), in a variable of its own or inside the input.
    for (const response of ['a\ud800b', 'a\u0000b', '\udc00']) {
      const lone = await respond({ response });
      expect(codes(lone)).toEqual(['INVALID_RESPONSE']);
      expect(lone.errors[0]?.extensions).toMatchObject({ field: 'response' });
    }
    const inline = await stack.gql(
      'mutation($r: JSON!) { respond(input: { jobId: "' +
        id +
        '", clientRequestId: "k", response: $r }) { job { id } } }',
      { r: 'x\ud800' },
    );
    expect(codes(inline)).toEqual(['INVALID_RESPONSE']);
    // Another input of the same operation still answers INVALID_INPUT.
    expect(codes(await respond({ response: 'ok', clientRequestId: 'k\u0000' }))).toEqual(['INVALID_INPUT']);
    const refused = await respond({ response: '   ' });
    expect(codes(refused)).toEqual(['INVALID_RESPONSE']);
    expect(refused.errors[0]?.extensions?.details ?? refused.errors[0]?.extensions).toMatchObject({
      field: 'response',
    });
    expect(codes(await respond({ response: 'fine' }))).toEqual([]);
    await stack.waitForJob(id, ['COMPLETED']);
    expect(codes(await respond({ response: 'other', clientRequestId: 'k2' }))).toEqual(['NOT_WAITING_INPUT']);
    expect(codes(await respond({ response: 'other' }))).toEqual(['IDEMPOTENCY_CONFLICT']);
    expect(codes(await respond({ response: 'fine' }))).toEqual([]);
  });

  it('takes any JSON value for an interrupt', async () => {
    const { id } = await waiting('!interrupt {"approve": "deploy"}');
    const inbox = expectData(await stack.gql(INBOX)).viewer as {
      inbox: { edges: { node: { id: string; input: { kind: string; payload: unknown } } }[] };
    };
    expect(inbox.inbox.edges.find((e) => e.node.id === id)?.node.input).toMatchObject({
      kind: 'INTERRUPT',
      payload: { approve: 'deploy' },
    });
    expect(
      codes(await stack.gql(RESPOND, { input: { jobId: id, response: [1, { ok: true }], clientRequestId: 'i' } })),
    ).toEqual([]);
    const done = await stack.waitForJob(id, ['COMPLETED']);
    expect(done.result).toMatchObject({ text: 'resumed: [1,{"ok":true}]' });
  });

  it('refuses an interrupt answer nested far deeper than the stack with INVALID_RESPONSE, and the job still waits', async () => {
    const { id } = await waiting('!interrupt {"approve": "deploy"}');
    const depth = 100_000;
    // Written by hand: JSON.stringify itself could not build a value this deep.
    const body = `{"query":${JSON.stringify(RESPOND)},"variables":{"input":{"jobId":"${id}","clientRequestId":"deep","response":${'['.repeat(depth)}1${']'.repeat(depth)}}}}`;
    const response = await stack.server.yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.alice}` },
      body,
    });
    const answer = (await response.json()) as { errors?: { extensions?: { code?: string; kind?: string } }[] };
    expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_RESPONSE', kind: 'INTERRUPT' });
    expect((await stack.waitForJob(id, ['WAITING_INPUT'])).status).toBe('WAITING_INPUT');
    // 64 levels are fine.
    const nested = JSON.parse(`${'['.repeat(64)}1${']'.repeat(64)}`) as unknown;
    expect(codes(await stack.gql(RESPOND, { input: { jobId: id, response: nested, clientRequestId: 'ok' } }))).toEqual(
      [],
    );
  });
});
