import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask, type CollabStack, type PairTeam, pairPerFile, tokenFor } from '../collaboration/collab-stack.js';
import { callTool, connectMcp } from '../interop/mcp-clients.js';

let stack: CollabStack;
let baseUrl: string;
let team: PairTeam;
pairPerFile((fixture) => {
  ({ stack, team, url: baseUrl } = fixture);
});

describe('task tools over MCP and invokeTeamTool', () => {
  let client: Client;
  let token: string;
  beforeAll(async () => {
    // A turn that stays open, so its member-run token keeps working.
    const jobId = await ask(stack, team.id, team.members[0].id, '!sleep 60000');
    await stack.waitFor(jobId, ['RUNNING']);
    token = await tokenFor(stack, jobId);
    client = await connectMcp(baseUrl, token);
  });
  afterAll(async () => client.close());

  it('creates and claims, and a stale write is an MCP error carrying current_revision', async () => {
    const created = await callTool(client, 'task_create', { title: 'Over MCP', write_scope: ['docs'] });
    expect(created).toMatchObject({ isError: false, json: { task: { revision: 1, created_by: 'Ada' }, warnings: [] } });
    const id = (created.json as { task: { id: string } }).task.id;
    const claimed = await callTool(client, 'task_claim', { task_id: id, expected_revision: 1 });
    expect(claimed.json).toMatchObject({ task: { owner: 'Ada', status: 'claimed', revision: 2 } });
    const stale = await callTool(client, 'task_release', { task_id: id, expected_revision: 1 });
    expect(stale).toMatchObject({
      isError: true,
      json: { error: { code: 'TASK_STALE_REVISION', current_revision: 2 } },
    });
    // invokeTeamTool runs the very same tool: the task is there, at its revision.
    const viaGraphql = await stack.tool(token, 'task_list', { owner: 'Ada' });
    expect(viaGraphql.value).toMatchObject({ tasks: [{ id, revision: 2 }], next_cursor: null });
  });
});
