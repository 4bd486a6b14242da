import type { Core } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam } from './fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack } from './graphql-stack.js';

let stack: GraphqlStack;
beforeAll(async () => {
  stack = await createGraphqlStack({
    scheduler: false,
    tokenHint: 'The token was printed in the terminal.',
    // A core whose catalog search fails like a broken driver would: not a DomainError.
    core: (core): Core => ({
      ...core,
      agents: {
        ...core.agents,
        search: async () => {
          throw new Error('SQLITE_CORRUPT: secret internals at /var/db');
        },
      },
    }),
  });
});
afterAll(async () => stack.close());

describe('authentication', () => {
  it.each([
    ['no token', null],
    ['an unknown token', 'tok-mallory'],
  ])('answers UNAUTHENTICATED with HTTP 401 for %s', async (_name, token) => {
    const response = await stack.gql('{ viewer { id } }', {}, token);
    expect(response.status).toBe(401);
    expect(codes(response)).toEqual(['UNAUTHENTICATED']);
    expect(response.data).toBeNull();
  });

  it('refuses a mutation without a token and creates nothing', async () => {
    const response = await stack.gql(
      'mutation { createTeam(input: {clientRequestId: "x", name: "n", goal: "g", members: []}) { team { id } } }',
      {},
      null,
    );
    expect(codes(response)).toEqual(['UNAUTHENTICATED']);
    const teams = await stack.gql('{ viewer { teams { edges { node { id } } } } }');
    expect(teams.data).toEqual({ viewer: { teams: { edges: [] } } });
  });

  it('answers the viewer its own owner id with a valid token', async () => {
    const response = await stack.gql('{ viewer { id } }', {}, 'tok-bob');
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ viewer: { id: 'bob' } });
  });
});

describe('error masking', () => {
  it('masks a non-domain error as "Unexpected error." and logs it', async () => {
    stack.logger.clear();
    const response = await stack.gql('{ agents { edges { node { id } } } }');
    expect(response.errors).toHaveLength(1);
    expect(response.errors[0]?.message).toBe('Unexpected error.');
    expect(JSON.stringify(response.errors)).not.toContain('SQLITE');
    expect(response.errors[0]?.extensions?.code).toBeUndefined();
    expect(stack.logger.at('error')).toHaveLength(1);
    expect(String(stack.logger.at('error')[0]?.fields.error)).toContain('SQLITE_CORRUPT');
  });

  it('passes GraphQL validation errors through unmasked', async () => {
    const response = await stack.gql('{ viewer { noSuchField } }');
    expect(response.errors[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('answers NOT_FOUND for respond on an unknown job, and UNAUTHENTICATED without a token', async () => {
    const query = 'mutation { respond(input: {jobId: "job_1", response: "x", clientRequestId: "r"}) { job { id } } }';
    expect(codes(await stack.gql(query))).toEqual(['NOT_FOUND']);
    expect(codes(await stack.gql(query, {}, null))).toEqual(['UNAUTHENTICATED']);
  });

  it('refuses invokeTeamTool with an owner token (FORBIDDEN) and without a token (UNAUTHENTICATED)', async () => {
    const query = 'mutation { invokeTeamTool(input: {name: "read_team_context", arguments: {}}) }';
    expect(codes(await stack.gql(query))).toEqual(['FORBIDDEN']);
    expect(codes(await stack.gql(query, {}, null))).toEqual(['UNAUTHENTICATED']);
  });

  it('answers Team.history, Team.results and Team.result for the owner', async () => {
    const team = await createTeam(stack);
    const response = await stack.gql(
      `query($id: ID!) { team(id: $id) { history { nextCursor cursorExpired } results { nextCursor }
         result(jobId: "job_missing") { requestExcerpt } } }`,
      { id: team.id },
    );
    expect(response.errors).toEqual([]);
    expect(response.data?.team).toEqual({
      history: { nextCursor: null, cursorExpired: false },
      results: { nextCursor: null },
      result: null,
    });
  });
});

describe('pages', () => {
  it('serves GraphiQL with every asset inlined (no CDN), asking for a token and never carrying one', async () => {
    const response = await stack.server.yoga.fetch('http://localhost/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<html');
    expect(html).not.toMatch(/unpkg\.com|jsdelivr/);
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=["']https?:/);
    expect(html).not.toContain('tok-alice');
    expect(html).toContain('Bearer <your token>');
    expect(html).toContain('The token was printed in the terminal.');
  });

  it('answers /health with {"status":"ok"}', async () => {
    const response = await stack.server.yoga.fetch('http://localhost/health');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('serves the home page at / with the title and the curl example', async () => {
    const response = await stack.server.yoga.fetch('http://localhost/');
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    expect(html).toContain('<title>Agent Teams</title>');
    expect(html).toContain('curl');
    expect(html).toContain('/graphql');
  });

  it('serves a given page instead of the default one', async () => {
    const other = await createGraphqlStack({ scheduler: false, pageHtml: '<p>widget demo</p>' });
    try {
      expect(await (await other.server.yoga.fetch('http://localhost/')).text()).toBe('<p>widget demo</p>');
    } finally {
      await other.close();
    }
  });
});
