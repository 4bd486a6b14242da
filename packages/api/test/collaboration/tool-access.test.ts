import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ask,
  type CollabStack,
  createCollabStack,
  createPair,
  NO_DATA,
  OWNER_TOKENS,
  stackPerFile,
  tokenFor,
} from './collab-stack.js';

let stack: CollabStack;
stackPerFile((built) => {
  stack = built;
});

const cancel = (id: string) => stack.cancel(id);

describe('who may call the member tools', () => {
  it('keeps a member-run token inside its team and refuses other owners (FORBIDDEN / NOT_FOUND)', async () => {
    const mine = await createPair(stack);
    const other = await createPair(stack);
    const bobs = await createPair(stack, OWNER_TOKENS.bob);
    const [ada] = mine.members;
    const holder = await ask(stack, mine.id, ada.id, '!sleep 600000');
    await stack.waitFor(holder, ['RUNNING']);
    const theirJob = await ask(
      stack,
      bobs.id,
      (bobs.members[0] as { id: string }).id,
      '!reply theirs',
      OWNER_TOKENS.bob,
    );
    const token = await tokenFor(stack, holder);

    expect((await stack.tool(token, 'read_team_context', {})).value).toMatchObject({ team_id: mine.id });
    expect((await stack.tool(token, 'read_team_context', { team_id: other.id })).code).toBe('FORBIDDEN');
    expect((await stack.tool(token, 'read_team_history', { team_id: bobs.id })).code).toBe('FORBIDDEN');
    expect((await stack.tool(token, 'read_team_result', { job_id: theirJob })).code).toBe('NOT_FOUND');
    const stranger = (other.members[1] as { id: string }).id;
    expect((await stack.tool(token, 'send_member', { member_id: stranger, text: 'hi', request_id: 'x1' })).code).toBe(
      'NOT_FOUND',
    );
    expect((await stack.tool(token, 'no_such_tool', {})).code).toBe('INVALID_INPUT');
    expect((await stack.tool(token, 'read_team_context', { surprise: 1 })).code).toBe('INVALID_INPUT');
    // Owner tokens are not member runs; unknown tokens are nobody.
    expect((await stack.tool(OWNER_TOKENS.bob, 'read_team_context', {})).code).toBe('FORBIDDEN');
    expect((await stack.tool('atmr_forged', 'read_team_context', {})).code).toBe('UNAUTHENTICATED');
    // Another owner cannot read the team through GraphQL either.
    const peek = await stack.gql(
      'query($id: ID!) { team(id: $id) { history { nextCursor } } }',
      { id: mine.id },
      OWNER_TOKENS.bob,
    );
    expect((peek.data ?? NO_DATA).team).toBeNull();

    await cancel(holder);
    await stack.waitFor(holder, ['CANCELLED']);
    expect((await stack.tool(token, 'read_team_context', {})).code).toBe('FORBIDDEN');
  });

  it('serves the read tools to the scripted runtime through !tool, from the same core functions', async () => {
    const team = await createPair(stack);
    const [ada, bob] = team.members;
    const first = await ask(stack, team.id, bob.id, '!reply The Quarterly numbers');
    await stack.waitFor(first, ['COMPLETED']);
    const reader = await ask(
      stack,
      team.id,
      ada.id,
      `!tool search_team_results {"query":"quarterly","limit":1}\n!tool read_team_result {"job_id":"${first}"}`,
    );
    const done = await stack.waitFor(reader, ['COMPLETED']);
    const [search, result] = String((done.result as { text: string }).text)
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(search.results).toHaveLength(1);
    expect(search.results[0]).toMatchObject({
      job_id: first,
      status: 'COMPLETED',
      member: { id: bob.id, name: 'Bob' },
      result_excerpt: 'The Quarterly numbers',
      truncated: false,
    });
    expect(search.next_cursor).toBeNull();
    expect(result).toMatchObject({
      job_id: first,
      kind: 'REQUEST',
      status: 'COMPLETED',
      requester: { member: null },
      result: { available: true, text: 'The Quarterly numbers', truncated: false },
    });
  });
});

describe('the owner reads through GraphQL', () => {
  it('pages Team.history with cursors bound to the filters', async () => {
    const team = await createPair(stack);
    const [ada] = team.members;
    for (const text of ['!reply one', '!reply two'])
      await stack.waitFor(await ask(stack, team.id, ada.id, text), ['COMPLETED']);
    const page = (vars: Record<string, unknown>) =>
      stack.gql(
        `query($id: ID!, $filter: RecordFilter, $limit: Int, $cursor: String) { team(id: $id) {
           history(filter: $filter, limit: $limit, cursor: $cursor) { records { kind text from { name } member { name } job { id } } nextCursor cursorExpired } } }`,
        { id: team.id, ...vars },
      );
    const first = await page({ limit: 3 });
    const history = (first.data ?? NO_DATA).team as { history: { records: { text: string }[]; nextCursor: string } };
    expect(history.history.records.map((r) => r.text)).toEqual(['two', '!reply two', 'one']);
    const second = await page({ limit: 3, cursor: history.history.nextCursor });
    const rest = (second.data ?? NO_DATA).team as { history: { records: { text: string }[]; nextCursor: null } };
    expect(rest.history).toMatchObject({ records: [{ text: '!reply one' }], nextCursor: null });
    const mismatch = await page({ limit: 3, cursor: history.history.nextCursor, filter: { query: 'one' } });
    expect(mismatch.errors[0]?.extensions?.code).toBe('CURSOR_MISMATCH');
    const tooMany = await page({ limit: 21 });
    expect(tooMany.errors[0]?.extensions).toMatchObject({ code: 'INVALID_INPUT', field: 'limit' });
  });
});

describe('after a restart', () => {
  it('answers the read tools from the database alone, and the GraphQL reads with them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-teams-collab-'));
    const file = join(dir, 'teams.sqlite');
    try {
      const before = await createCollabStack({ database: file });
      const team = await createPair(before);
      const [ada] = team.members;
      const done = await ask(before, team.id, ada.id, '!reply kept across restarts');
      await before.waitFor(done, ['COMPLETED']);
      const waiting = await ask(before, team.id, ada.id, '!ask still there?');
      await before.waitFor(waiting, ['WAITING_INPUT']);
      const token = await tokenFor(before, waiting);
      await before.close();

      const after = await createCollabStack({ database: file, scheduler: false });
      try {
        const history = (await after.tool(token, 'read_team_history', { query: 'KEPT' })).value as {
          records: { kind: string; job_id: string }[];
        };
        expect(history.records.map((r) => [r.kind, r.job_id])).toEqual([
          ['COMPLETED', done],
          ['REQUEST', done],
        ]);
        const page = await after.gql(
          'query($id: ID!) { team(id: $id) { results(filter: {query: "kept"}) { results { job { id } resultExcerpt } } } }',
          { id: team.id },
        );
        expect(((page.data ?? NO_DATA).team as { results: unknown }).results).toEqual({
          results: [{ job: { id: done }, resultExcerpt: 'kept across restarts' }],
        });
      } finally {
        await after.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses U+0000 and lone surrogates anywhere in the tool arguments of a runtime with INVALID_INPUT', async () => {
    const team = await createPair(stack);
    const [ada] = team.members;
    const reader = await ask(
      stack,
      team.id,
      ada.id,
      '!tool read_team_history {"member_id":"m\\u0000"}\n!tool search_team_results {"query":"\\ud800"}\n!tool read_team_context {}',
    );
    const done = await stack.waitFor(reader, ['COMPLETED']);
    const lines = String((done.result as { text: string }).text)
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toEqual({ error: { code: 'INVALID_INPUT' } });
    expect(lines[1]).toEqual({ error: { code: 'INVALID_INPUT' } });
    expect(lines[2]).toMatchObject({ team_id: team.id });
  });
});
