import { type StreamResponse, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { describe, expect, it } from 'vitest';
import { ask, type CollabStack, OWNER_TOKENS, type PairTeam, pairPerFile } from '../collaboration/collab-stack.js';
import {
  artifactText,
  asTask,
  collect,
  connectA2a,
  eventState,
  sendParams,
  statusText,
  userMessage,
} from './a2a-clients.js';

let stack: CollabStack;
let baseUrl: string;
let team: PairTeam;
let agentUrl: string;
let client: Client;

pairPerFile(async (fixture) => {
  ({ stack, team, url: baseUrl } = fixture);
  agentUrl = `${baseUrl}/a2a/${team.id}/${team.members[0].id}`;
  client = await connectA2a(agentUrl, OWNER_TOKENS.alice);
});

const { TASK_STATE_SUBMITTED, TASK_STATE_WORKING, TASK_STATE_COMPLETED, TASK_STATE_INPUT_REQUIRED } = TaskState;

describe('the agent card', () => {
  it("describes the member, streams, asks for a bearer token and names the member's JSON-RPC URL", async () => {
    for (const path of ['/.well-known/agent-card.json', '/agent-card.json']) {
      const response = await fetch(`${agentUrl}${path}`, {
        headers: { authorization: `Bearer ${OWNER_TOKENS.alice}` },
      });
      expect(response.status).toBe(200);
      const card = (await response.json()) as Record<string, unknown>;
      expect(card).toMatchObject({
        name: 'Ada',
        capabilities: { streaming: true },
        securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
        supportedInterfaces: [{ url: agentUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      });
      expect(card.description).toContain('Research');
    }
    expect((await client.getAgentCard()).name).toBe('Ada');
  });

  it("answers 404 for another owner's or an unknown member, and 401 without a token", async () => {
    const card = `${agentUrl}/.well-known/agent-card.json`;
    expect((await fetch(card, { headers: { authorization: `Bearer ${OWNER_TOKENS.bob}` } })).status).toBe(404);
    const unknown = `${baseUrl}/a2a/${team.id}/mem_unknown/.well-known/agent-card.json`;
    expect((await fetch(unknown, { headers: { authorization: `Bearer ${OWNER_TOKENS.alice}` } })).status).toBe(404);
    const anonymous = await fetch(card);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    await expect(connectA2a(agentUrl, OWNER_TOKENS.bob)).rejects.toThrow(/404/);
    const rpc = await fetch(agentUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${OWNER_TOKENS.bob}`,
        'content-type': 'application/json',
        'a2a-version': '1.0',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'job_1' } }),
    });
    expect(rpc.status).toBe(404);
  });
});

describe('JSON-RPC', () => {
  it('sends a request and answers the completed task; the message id is the idempotency key', async () => {
    const message = userMessage('Summarise the findings');
    const task = asTask(await client.sendMessage(sendParams(message)));
    expect(task.status?.state).toBe(TASK_STATE_COMPLETED);
    expect(artifactText(task)).toBe('Ada: Summarise the findings');
    expect(statusText(task)).toBe('Ada: Summarise the findings');
    expect((await stack.waitFor(task.id, ['COMPLETED'])).result).toEqual({ text: 'Ada: Summarise the findings' });
    const again = asTask(await client.sendMessage(sendParams(message)));
    expect(again.id).toBe(task.id);
    expect((await client.getTask({ tenant: '', id: task.id })).status?.state).toBe(TASK_STATE_COMPLETED);
  });

  it('streams status updates in order and ends at the final state', async () => {
    // The turn waits for a change of the team, made only once the stream showed it working: a turn
    // that ended before the stream caught up would show its states merged (an event read back from
    // the log shows the job as it is by then), which a loaded machine makes likely.
    const events: StreamResponse[] = [];
    let woken = false;
    for await (const event of client.sendMessageStream(sendParams(userMessage('!wait 60000\n!reply streamed')))) {
      events.push(event);
      if (!woken && eventState(event) === TASK_STATE_WORKING) {
        woken = true;
        await ask(stack, team.id, team.members[1].id, 'a change that ends the wait');
      }
    }
    expect(events[0]?.payload?.$case).toBe('task');
    const states = events.map(eventState);
    expect(states.at(-1)).toBe(TASK_STATE_COMPLETED);
    expect(states.at(-2)).toBe('artifact');
    expect(woken).toBe(true);
    const order = [TASK_STATE_SUBMITTED, TASK_STATE_WORKING, TASK_STATE_COMPLETED];
    const ranks = states.filter((state) => state !== 'artifact').map((state) => order.indexOf(state as TaskState));
    expect(ranks.every((rank, i) => rank >= 0 && (i === 0 || rank > (ranks[i - 1] ?? -1)))).toBe(true);
    const artifact = events.find((event) => event.payload?.$case === 'artifactUpdate')?.payload;
    const text = artifact?.$case === 'artifactUpdate' ? artifact.value.artifact?.parts[0]?.content : undefined;
    expect(text).toMatchObject({ $case: 'text', value: expect.stringMatching(/\nstreamed$/) });
  });

  it('asks through input-required and takes the answer as a message to the same task', async () => {
    const waiting = asTask(await client.sendMessage(sendParams(userMessage('!ask Which region?'))));
    expect(waiting.status?.state).toBe(TASK_STATE_INPUT_REQUIRED);
    expect(statusText(waiting)).toBe('Which region?');
    const events = await collect(client.sendMessageStream(sendParams(userMessage('EU', { taskId: waiting.id }))));
    expect(events.map(eventState).at(-1)).toBe(TASK_STATE_COMPLETED);
    const done = await client.getTask({ tenant: '', id: waiting.id });
    expect(artifactText(done)).toBe('answered: EU');
    await expect(client.sendMessage(sendParams(userMessage('late', { taskId: waiting.id })))).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
  });

  it('cancels a running task, and refuses to cancel a finished one', async () => {
    const running = asTask(await client.sendMessage(sendParams(userMessage('!sleep 60000'), true)));
    await stack.waitFor(running.id, ['RUNNING']);
    const cancelled = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await stack.waitFor(running.id, ['CANCELLED'])).status).toBe('CANCELLED');
    const finished = asTask(await client.sendMessage(sendParams(userMessage('quick'))));
    await expect(client.cancelTask({ tenant: '', id: finished.id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
  });

  it('resubscribes to a running task until it finishes, and reports failures with their reason', async () => {
    const task = asTask(await client.sendMessage(sendParams(userMessage('!sleep 100\n!reply later'), true)));
    const events = await collect(client.resubscribeTask({ tenant: '', id: task.id }));
    expect(events[0]?.payload?.$case).toBe('task');
    expect(events.map(eventState).at(-1)).toBe(TASK_STATE_COMPLETED);
    await expect(collect(client.resubscribeTask({ tenant: '', id: task.id }))).rejects.toThrow();
    const failed = asTask(await client.sendMessage(sendParams(userMessage('!fail boom'))));
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(statusText(failed)).toContain('boom');
  });

  it("finds only this member's tasks", async () => {
    const other = await ask(stack, team.id, team.members[1].id, 'For Bob');
    await expect(client.getTask({ tenant: '', id: other })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(client.getTask({ tenant: '', id: 'job_missing' })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('requires the A2A-Version header of protocol 1.0', async () => {
    const response = await fetch(agentUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${OWNER_TOKENS.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'x' } }),
    });
    const body = (await response.json()) as { id: number; error: { code: number } };
    expect(body).toMatchObject({ id: 7, error: { code: -32009 } });
  });
});
