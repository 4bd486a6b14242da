import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_TEAM, createTeam, SEND_REQUEST, teamInput } from '../graphql/fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack } from '../graphql/graphql-stack.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';

const NUL = '\u0000';
const LONE = '\ud800';

describe.each(['sqlite', 'postgres'] as const)('input a store cannot keep, on %s', (store) => {
  let stack: GraphqlStack;
  let postgres: FreshPostgres | null = null;

  beforeAll(async () => {
    postgres = store === 'postgres' ? await createFreshPostgres('unstorable') : null;
    stack = await createGraphqlStack({ scheduler: false, ...(postgres ? { database: postgres.url } : {}) });
  });
  afterAll(async () => {
    await stack.close();
    await postgres?.drop();
  });

  it.each([
    ['an id literal', `{ team(id: "a\\u0000") { id } }`, {}, 'query'],
    ['an id variable', 'query($id: ID!) { job(id: $id) { id } }', { id: `job_${NUL}` }, '$id'],
    ['a search query', 'query($q: String!) { mentionTargets(query: $q) { id } }', { q: `a${NUL}` }, '$q'],
    ['a cursor', 'query($c: String) { viewer { teams(after: $c) { edges { cursor } } } }', { c: NUL }, '$c'],
    ['a lone surrogate', 'query($id: ID!) { team(id: $id) { id } }', { id: `team_${LONE}` }, '$id'],
  ])(
    'refuses U+0000 or a lone surrogate in %s with INVALID_INPUT naming where',
    async (_name, query, variables, field) => {
      const response = await stack.gql(query, variables);
      expect(codes(response)).toEqual(['INVALID_INPUT']);
      expect(response.errors[0]?.extensions?.field).toBe(field);
    },
  );

  it('judges a repeated document the same each time (its literal check is kept per parsed document)', async () => {
    const refused = `{ team(id: "b\\u0000") { id } }`;
    const storable = '{ team(id: "team_plain") { id } }';
    for (let i = 0; i < 3; i += 1) {
      expect(codes(await stack.gql(refused))).toEqual(['INVALID_INPUT']);
      const fine = await stack.gql(storable);
      expect(fine.errors ?? []).toEqual([]);
      expect(fine.data).toEqual({ team: null });
    }
  });

  it('refuses it in every text of a mutation, in JSON answers (keys included), and stores nothing', async () => {
    for (const input of [
      teamInput({ name: `Team ${NUL}` }),
      teamInput({ goal: `${NUL}` }),
      teamInput({ clientRequestId: `key${NUL}` }),
      teamInput({
        members: [
          { name: `A${NUL}`, agentId: 'researcher' },
          { name: 'B', agentId: 'writer' },
        ],
      }),
    ]) {
      expect(codes(await stack.gql(CREATE_TEAM, { input }))).toEqual(['INVALID_INPUT']);
    }
    const team = await createTeam(stack);
    const send = await stack.gql(SEND_REQUEST, {
      input: { teamId: team.id, memberIds: [team.members[0]?.id], text: `hello${NUL}`, clientRequestId: 's' },
    });
    expect(codes(send)).toEqual(['INVALID_INPUT']);
    // An answer's own text is `respond`'s to refuse, as INVALID_RESPONSE (respond-graphql.test.ts);
    // the other fields of its input are refused here.
    const respond = await stack.gql('mutation($input: RespondInput!) { respond(input: $input) { job { id } } }', {
      input: { jobId: `job_${NUL}`, response: 'fine', clientRequestId: 'r' },
    });
    expect(codes(respond)).toEqual(['INVALID_INPUT']);
    expect(respond.errors[0]?.extensions?.field).toBe('$input.jobId');
    const teams = await stack.gql('{ viewer { teams { edges { node { id name } } } } }');
    expect(teams.data).toMatchObject({ viewer: { teams: { edges: [{ node: { id: team.id } }] } } });
  });
});
