import { type StreamResponse, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { describe, expect, it } from 'vitest';
import { ask, type CollabStack, OWNER_TOKENS, type PairTeam, pairPerFile } from '../collaboration/collab-stack.js';
import { asTask, connectA2a, eventState, sendParams, statusText, userMessage } from './a2a-clients.js';

let stack: CollabStack;
let team: PairTeam;
let client: Client;

pairPerFile(async (fixture) => {
  ({ stack, team } = fixture);
  client = await connectA2a(`${fixture.url}/a2a/${team.id}/${team.members[0].id}`, OWNER_TOKENS.alice);
});

const { TASK_STATE_WORKING, TASK_STATE_COMPLETED, TASK_STATE_INPUT_REQUIRED } = TaskState;

/**
 * Subscribes to an input-required task with the SDK's client, answers it once the stream showed
 * the task, and wakes the answer's `!wait` once the stream showed it working and the job waits (so
 * the working state lasts until the stream has caught up, however loaded the machine). Answers
 * every event.
 */
async function subscribeAndAnswer(taskId: string, answer: string): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  let woken = false;
  for await (const event of client.resubscribeTask({ tenant: '', id: taskId })) {
    events.push(event);
    if (events.length === 1) {
      await client.sendMessage(sendParams(userMessage(answer, { taskId }), true));
    } else if (!woken && eventState(event) === TASK_STATE_WORKING) {
      woken = true;
      // A change made before the wait began would not end it.
      await stack.waitFor(taskId, ['WAITING_CHANGE']);
      await ask(stack, team.id, team.members[1].id, 'a change that ends the wait');
    }
  }
  return events;
}

/** The text of a stream event's status message. */
function eventText(event: StreamResponse | undefined): string | undefined {
  const payload = event?.payload;
  if (payload?.$case === 'statusUpdate' || payload?.$case === 'task') return statusText(payload.value);
  return undefined;
}

describe('SubscribeToTask on an input-required task', () => {
  it('sends one working update for the answer (resuming, then running), then the result', async () => {
    const waiting = asTask(await client.sendMessage(sendParams(userMessage('!ask Which region?'))));
    expect(waiting.status?.state).toBe(TASK_STATE_INPUT_REQUIRED);
    const events = await subscribeAndAnswer(waiting.id, '!wait 60000\n!reply done');
    expect(events.map(eventState)).toEqual([
      TASK_STATE_INPUT_REQUIRED,
      TASK_STATE_WORKING,
      'artifact',
      TASK_STATE_COMPLETED,
    ]);
    expect(events[0]?.payload?.$case).toBe('task');
    expect(eventText(events.at(-1))).toMatch(/\ndone$/);
  });

  it('still sends a new question after the answer as its own input-required update', async () => {
    const waiting = asTask(await client.sendMessage(sendParams(userMessage('!ask Which region?'))));
    const events = await subscribeAndAnswer(waiting.id, '!wait 60000\n!ask Which city?');
    expect(events.map(eventState)).toEqual([TASK_STATE_INPUT_REQUIRED, TASK_STATE_WORKING, TASK_STATE_INPUT_REQUIRED]);
    expect(eventText(events[0])).toBe('Which region?');
    expect(eventText(events[2])).toBe('Which city?');
  });
});
