import { FakeClock } from '@agent-teams/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam } from '../graphql/fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { send } from './http-client.js';

const BURST = 5;
const clock = new FakeClock(0);
let stack: GraphqlStack;

beforeAll(async () => {
  stack = await createGraphqlStack({ scheduler: false, rateLimit: { perSecond: 2, burst: BURST }, rateClock: clock });
});
afterAll(async () => stack.close());

const VIEWER = '{ viewer { id } }';

describe('per-owner rate limit over HTTP', () => {
  it(`runs ${BURST - 1} and ${BURST} operations of a burst and refuses the ${BURST + 1}th with 429, RATE_LIMITED and retryAfterMs`, async () => {
    for (let i = 1; i <= BURST; i++) expect(codes(await stack.gql(VIEWER, {}, TOKENS.alice))).toEqual([]);
    const refused = await stack.gql(VIEWER, {}, TOKENS.alice);
    expect(refused.status).toBe(429);
    expect(refused.errors[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 500 });
    expect(refused.data).toBeNull();
  });

  it('never refuses answers and cancels, and never slows another owner', async () => {
    const respond = await stack.gql(
      'mutation { respond(input: { jobId: "job_none", response: "x", clientRequestId: "r" }) { job { id } } }',
      {},
      TOKENS.alice,
    );
    expect(codes(respond)).toEqual(['NOT_FOUND']);
    const cancel = await stack.gql(
      'mutation { cancelJob(input: { jobId: "job_none" }) { job { id } } }',
      {},
      TOKENS.alice,
    );
    expect(codes(cancel)).toEqual(['NOT_FOUND']);
    // A mutation mixing a cancel with anything else is limited like any other operation.
    const mixed = await stack.gql(
      'mutation { cancelJob(input: { jobId: "job_none" }) { job { id } } deleteTeam(input: { teamId: "t" }) { deletedTeamId } }',
      {},
      TOKENS.alice,
    );
    expect(codes(mixed)).toEqual(['RATE_LIMITED']);
    for (let i = 0; i < BURST; i++) expect(codes(await stack.gql(VIEWER, {}, TOKENS.bob))).toEqual([]);
  });

  it('refills at the configured rate: refused 1 ms before the next token, served at it', async () => {
    clock.advance(499);
    expect(codes(await stack.gql(VIEWER, {}, TOKENS.alice))).toEqual(['RATE_LIMITED']);
    clock.advance(1);
    expect(codes(await stack.gql(VIEWER, {}, TOKENS.alice))).toEqual([]);
    expect(codes(await stack.gql(VIEWER, {}, TOKENS.alice))).toEqual(['RATE_LIMITED']);
  });

  it('sends Retry-After in whole seconds on the real server', async () => {
    const { url } = await stack.server.listen(0, '127.0.0.1');
    const answer = await send(`${url}/graphql`, {
      headers: { authorization: `Bearer ${TOKENS.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: VIEWER }),
    });
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('1');
    expect(JSON.stringify(answer.json())).not.toContain('"http"');
  });

  it('spends a token on refused operations too, so a flood of invalid ones is limited as well', async () => {
    clock.advance(10_000);
    // One token for the team, then the rest of the burst on operations refused for their input.
    await createTeam(stack, TOKENS.bob);
    for (let i = 0; i < BURST - 1; i++) {
      expect(codes(await stack.gql('{ team(id: "\\u0000") { id } }', {}, TOKENS.bob))).toEqual(['INVALID_INPUT']);
    }
    expect(codes(await stack.gql(VIEWER, {}, TOKENS.bob))).toEqual(['RATE_LIMITED']);
  });
});
