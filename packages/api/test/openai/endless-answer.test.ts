// A provider whose answer never ends (a broken or hostile one, or a proxy in front of it) fails
// its call at ANSWER_MAX_CHARS, streamed or not, billed as far as it came, and the server goes on:
// before, the answer grew until the process ran out of memory, with every team in it.
import type { ServerResponse } from 'node:http';
import { JobPhase } from '@agent-teams/core';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_BODY_MAX_BYTES } from '../../src/runtimes/openai/answer-readers.js';
import { ANSWER_MAX_CHARS } from '../../src/runtimes/openai/chunk-accumulator.js';
import { loopbackOrError } from '../support/chat-provider-server.js';
import { type LoopbackProvider, startLoopbackProvider } from '../support/loopback-provider.js';
import { openTeamHarness, type TeamHarness, waitFor } from './openai-team-harness.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: loopbackOrError }));
afterAll(() => server.close());

let h: TeamHarness | null = null;
let provider: LoopbackProvider | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
  await provider?.close();
  provider = null;
});

/** Writes `piece` to `res` until the client goes away; @returns the bytes written. */
function endless(res: ServerResponse, piece: string): { bytes: number } {
  const sent = { bytes: 0 };
  const write = () => {
    while (!res.destroyed && res.write(piece)) sent.bytes += piece.length;
    if (!res.destroyed) res.once('drain', write);
  };
  res.on('close', () => res.removeAllListeners('drain'));
  write();
  return sent;
}

const CHUNK = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'x'.repeat(65_536) } }] })}\n\n`;

describe('an answer that never ends', () => {
  it.each([
    [
      'streamed',
      true,
      (res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return endless(res, CHUNK);
      },
    ],
    [
      'not streamed',
      false,
      (res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"choices":[{"index":0,"message":{"role":"assistant","content":"');
        return endless(res, 'x'.repeat(65_536));
      },
    ],
  ])(
    'fails the call, %s, billed as far as it came, and the team goes on',
    async (_name, stream, answer) => {
      let sent: { bytes: number } | null = null;
      let calls = 0;
      provider = await startLoopbackProvider((_request, res) => {
        calls += 1;
        if (calls === 1) sent = answer(res);
        else if (stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const done = { choices: [{ index: 0, delta: { content: 'Short.' }, finish_reason: 'stop' }] };
          res.end(`data: ${JSON.stringify(done)}\n\ndata: [DONE]\n\n`);
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          const done = {
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Short.' } }],
          };
          res.end(JSON.stringify(done));
        }
      });
      h = await openTeamHarness({ settings: { baseUrl: provider.baseUrl, stream } });
      const harness = h;
      const { team, lead } = await harness.team();
      const job = await harness.send(team, lead, 'Write forever');
      const failed = await waitFor(async () => {
        const now = await harness.job(job.id);
        return now.phase === JobPhase.FAILED ? now : null;
      }, 'the endless answer to fail');
      expect(failed.error).toContain(
        stream ? `passed ${ANSWER_MAX_CHARS} characters` : `${ANSWER_BODY_MAX_BYTES} bytes`,
      );
      // The provider was cut off near the limit, not read to the end of memory.
      expect((sent as { bytes: number } | null)?.bytes ?? 0).toBeLessThan(ANSWER_BODY_MAX_BYTES + 16 * 2 ** 20);
      const usage = await harness.database.db.selectFrom('model_usage').select('output_tokens').execute();
      // Counted: the received text's estimate, at most the call's output allowance (1,024 by default).
      expect(Number(usage[0]?.output_tokens)).toBe(1024);
      // The next request of the team is answered.
      const next = await harness.send(team, lead, 'Something short');
      const done = await waitFor(async () => {
        const now = await harness.job(next.id);
        return now.phase === JobPhase.COMPLETED ? now : null;
      }, 'the next request');
      expect(done.result?.text).toBe('Short.');
    },
    60_000,
  );
});
