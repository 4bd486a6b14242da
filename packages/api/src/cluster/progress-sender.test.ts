import { asJobId } from '@agent-teams/core';
import { MemoryLogger } from '@agent-teams/testkit';
import { describe, expect, it, vi } from 'vitest';
import { decodeProgress } from './progress-payload.js';
import { PROGRESS_PENDING_LIMIT, ProgressSender } from './progress-sender.js';

const job = asJobId('job_1');

describe('ProgressSender', () => {
  it('sends the notices of a burst together, in order, on the progress channel', async () => {
    const sent: [string, string][] = [];
    const sender = new ProgressSender({
      serverId: 'srv_a',
      logger: new MemoryLogger(),
      notify: async (channel, payload) => {
        sent.push([channel, payload]);
        return true;
      },
    });
    for (const delta of ['a', 'b', 'c']) sender.send({ jobId: job, textDelta: delta });
    await vi.waitFor(() => expect(sender.stats.sent).toBe(1));
    expect(sent.map(([channel]) => channel)).toEqual(['agent_teams_progress']);
    expect(decodeProgress(sent[0]?.[1] ?? '', 'srv_b')).toEqual([{ jobId: job, textDelta: 'abc' }]);
    await sender.stop();
  });

  it('drops what it cannot send, and never holds more than its limit', async () => {
    let connected = false;
    const payloads: string[] = [];
    const sender = new ProgressSender({
      serverId: 'srv_a',
      logger: new MemoryLogger(),
      notify: async (_channel, payload) => {
        if (connected) payloads.push(payload);
        return connected;
      },
    });
    for (let i = 0; i < PROGRESS_PENDING_LIMIT + 10; i += 1) sender.send({ jobId: job, toolCall: `t${i}` });
    await vi.waitFor(() => expect(sender.stats.dropped).toBeGreaterThan(10));
    connected = true;
    sender.send({ jobId: job, textDelta: 'after' });
    await sender.stop();
    expect(payloads.flatMap((payload) => decodeProgress(payload, 'srv_b'))).toEqual([
      { jobId: job, textDelta: 'after' },
    ]);
  });
});
