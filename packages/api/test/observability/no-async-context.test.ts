// Decision 0236: nothing keeps an async context, so Node 20 runs no promise hooks: a request and
// a turn over real HTTP leave every promise without an async id. An unexpected GraphQL error's
// line still carries the request's id, passed with the request instead.
import { executionAsyncId } from 'node:async_hooks';
import type { Core } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_TEAM, expectData, SEND_REQUEST, teamInput } from '../graphql/fixtures.js';
import { gqlOf, openTestApp, TOKENS } from '../support/test-app.js';

/** The async id a promise continuation runs under: 0 unless promise hooks are enabled. */
async function continuationAsyncId(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1));
  return Promise.resolve().then(() => executionAsyncId());
}

let app: Awaited<ReturnType<typeof openTestApp>>;
let url: string;
beforeAll(async () => {
  app = await openTestApp({
    // A catalog search and a team listing that fail like a broken driver would: not DomainErrors.
    http: {
      core: (core: Core): Core =>
        Object.assign({}, core, {
          agents: Object.assign({}, core.agents, {
            search: async () => {
              throw new Error('SQLITE_CORRUPT: secret internals');
            },
          }),
          // Likewise under the MCP owner tool `list_teams`.
          teams: Object.assign({}, core.teams, {
            list: async () => {
              throw new Error('SQLITE_CORRUPT: teams');
            },
          }),
        }),
    },
  });
  ({ url } = await app.server.listen(0, '127.0.0.1'));
});
afterAll(async () => app.close());

/** One GraphQL POST over the server's real HTTP edge. */
async function post(query: string, variables: Record<string, unknown>, requestId: string): Promise<unknown> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.alice}`, 'x-request-id': requestId },
    body: JSON.stringify({ query, variables }),
  });
  expect(response.headers.get('x-request-id')).toBe(requestId);
  return response.json();
}

describe('no async context', () => {
  it('runs no promise hooks after a request over HTTP and the turn it started', async () => {
    expect(await continuationAsyncId()).toBe(0);
    const team = expectData(await gqlOf(app)(CREATE_TEAM, { input: teamInput() })).createTeam as {
      team: { id: string; members: { id: string }[] };
    };
    const sent = (await post(
      SEND_REQUEST,
      {
        input: { teamId: team.team.id, memberIds: [team.team.members[0]?.id], text: 'hi', clientRequestId: 'h-1' },
      },
      'req-hooks-1',
    )) as { data: { sendRequest: { jobs: { id: string }[] } } };
    const jobId = sent.data.sendRequest.jobs[0]?.id ?? '';
    const JOB = 'query($id: ID!) { job(id: $id) { status } }';
    for (let i = 0; i < 400; i += 1) {
      const { data } = (await post(JOB, { id: jobId }, `req-poll-${i}`)) as { data: { job: { status: string } } };
      if (data.job.status === 'COMPLETED') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(
      ((await post(JOB, { id: jobId }, 'req-last')) as { data: { job: { status: string } } }).data.job.status,
    ).toBe('COMPLETED');
    expect(await continuationAsyncId()).toBe(0);
  });

  it("logs an unexpected GraphQL error once, with the request's id", async () => {
    app.logger.clear();
    const answer = (await post('{ agents { edges { node { id } } } }', {}, 'req-broken-1')) as {
      errors: { message: string }[];
    };
    expect(answer.errors.map((error) => error.message)).toEqual(['Unexpected error.']);
    const lines = app.logger.at('error');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message).toBe('unexpected error in a GraphQL operation');
    expect(lines[0]?.fields).toMatchObject({ requestId: 'req-broken-1' });
    expect(String(lines[0]?.fields.error)).toContain('SQLITE_CORRUPT');
  });

  it("logs it with a fresh id when the caller's id is refused, the id the answer echoes", async () => {
    app.logger.clear();
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${TOKENS.alice}`,
        'x-request-id': 'x'.repeat(65),
      },
      body: JSON.stringify({ query: '{ agents { edges { node { id } } } }' }),
    });
    const echoed = response.headers.get('x-request-id');
    expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
    expect(app.logger.at('error').map((line) => line.fields.requestId)).toEqual([echoed]);
  });

  it("logs an unexpected error of an MCP owner tool with the request's id", async () => {
    app.logger.clear();
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${TOKENS.alice}`,
        'x-request-id': 'req-mcp-1',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_teams', arguments: {} },
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).not.toContain('SQLITE');
    const lines = app.logger.at('error');
    expect(lines.map((line) => [line.message, line.fields.requestId])).toEqual([
      ['unexpected error in a GraphQL operation', 'req-mcp-1'],
    ]);
  });
});
