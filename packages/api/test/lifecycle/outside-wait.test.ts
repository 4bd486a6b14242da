import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForChangeOutside } from '../../src/events/outside-wait.js';
import { ask, type CollabStack, type PairTeam, pairPerFile, tokenFor } from '../collaboration/collab-stack.js';
import { callTool, connectMcp, refusalCode } from '../interop/mcp-clients.js';

let stack: CollabStack;
let baseUrl: string;
let team: PairTeam;
pairPerFile((fixture) => {
  ({ stack, team, url: baseUrl } = fixture);
});

interface WakeJson {
  timed_out: boolean;
  seq: number;
  changes: { kind: string; seq: number; job_id?: string; member_id?: string }[];
}

const teamSeq = async () => {
  const { data } = await stack.gql('query($id: ID!) { team(id: $id) { lastEventSeq } }', { id: team.id });
  const found = data?.team as { lastEventSeq: number } | undefined;
  if (!found) throw new Error('no team');
  return found.lastEventSeq;
};

describe('wait_for_change from outside the server (MCP, invokeTeamTool)', () => {
  let client: Client;
  let token: string;
  let jobId: string;
  beforeAll(async () => {
    // Ada's turn stays open, as a remote agent's would while it works.
    jobId = await ask(stack, team.id, team.members[0].id, '!sleep 60000');
    await stack.waitFor(jobId, ['RUNNING']);
    token = await tokenFor(stack, jobId);
    client = await connectMcp(baseUrl, token);
  });
  afterAll(async () => client.close());

  it('holds the MCP call until the team changes, then answers the change like a woken built-in wait', async () => {
    const before = await teamSeq();
    const waitingBefore = stack.app.events.waitingFor(team.id as never);
    let settled = false;
    const waiting = callTool(client, 'wait_for_change', { timeout_ms: 60_000 }).finally(() => {
      settled = true;
    });
    // Held: its wake-up is registered on the hub, and it has not answered.
    await expect.poll(() => stack.app.events.waitingFor(team.id as never)).toBeGreaterThan(waitingBefore);
    expect(settled).toBe(false);
    const other = await ask(stack, team.id, team.members[1].id, 'a change for Ada to see');
    const { isError, json } = await waiting;
    expect(isError).toBe(false);
    const woken = json as WakeJson;
    expect(woken.timed_out).toBe(false);
    expect(woken.seq).toBeGreaterThan(before);
    expect(woken.changes.every((change) => change.seq > before)).toBe(true);
    expect(woken.changes.map((change) => change.job_id)).toContain(other);
    // Its own events never wake it.
    expect(woken.changes.map((change) => change.job_id)).not.toContain(jobId);
  });

  it('answers at once with the changes after an after_seq in the past, through invokeTeamTool too', async () => {
    const now = await teamSeq();
    const answer = await stack.tool(token, 'wait_for_change', { timeout_ms: 60_000, after_seq: now - 1 });
    const woken = answer.value as WakeJson;
    expect(woken).toMatchObject({ timed_out: false, seq: now });
    expect(woken.changes.map((change) => change.seq)).toEqual([now]);
  });

  it('refuses bad arguments like a runtime does, and answers timed_out when the hold ends', async () => {
    const refused = await callTool(client, 'wait_for_change', { timeout_ms: 9_999 });
    expect(refused.isError).toBe(true);
    expect(refusalCode(refused.json)).toBe('INVALID_INPUT');
    expect(await stack.tool(token, 'wait_for_change', { timeout_ms: 10_000, after_seq: 1e9 })).toEqual({
      code: 'INVALID_INPUT',
    });
    const now = await teamSeq();
    // A short hold (the server holds 25 s): nothing changed, so it times out with the newest seq.
    const timedOut = await waitForChangeOutside(
      { core: stack.core, eventHub: stack.app.events, holdMs: 50 },
      jobId as never,
      { timeout_ms: 10_000 },
    );
    expect(timedOut).toEqual({ timed_out: true, seq: now, changes: [] });
  });

  it('stops working when the turn ends (FORBIDDEN)', async () => {
    const ended = await ask(stack, team.id, team.members[1].id, '!sleep 60000');
    await stack.waitFor(ended, ['RUNNING']);
    const endedToken = await tokenFor(stack, ended);
    await stack.cancel(ended);
    await stack.waitFor(ended, ['CANCELLED']);
    expect(await stack.tool(endedToken, 'wait_for_change', { timeout_ms: 10_000 })).toEqual({ code: 'FORBIDDEN' });
  });
});
