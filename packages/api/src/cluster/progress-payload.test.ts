import { asJobId } from '@agent-teams/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobProgressNotice } from '../events/progress-hub.js';
import { decodeProgress, encodeProgress, PROGRESS_PAYLOAD_BYTES, TOOL_NAME_BYTES } from './progress-payload.js';

const job = asJobId('job_1');
const bytes = (payload: string) => Buffer.byteLength(payload, 'utf8');
const text = (payloads: readonly string[]) =>
  payloads
    .flatMap((payload) => decodeProgress(payload, 'other'))
    .map((notice) => notice.textDelta ?? '')
    .join('');

/** The largest number of `char` repetitions whose single delta still fits one payload. */
function largestSingle(char: string): number {
  let count = 1;
  while (encodeProgress('srv_a', [{ jobId: job, textDelta: char.repeat(count + 1) }]).length === 1) count += 1;
  return count;
}

describe('progress payloads', () => {
  it('joins the consecutive deltas of one job and keeps the order across jobs and tool calls', () => {
    const other = asJobId('job_2');
    const notices: JobProgressNotice[] = [
      { jobId: job, textDelta: 'a' },
      { jobId: job, textDelta: 'b' },
      { jobId: other, textDelta: 'x' },
      { jobId: job, toolCall: 'read_team_context' },
      { jobId: job, textDelta: 'c' },
    ];
    const [payload, ...rest] = encodeProgress('srv_a', notices);
    expect(rest).toEqual([]);
    expect(decodeProgress(payload ?? '', 'srv_b')).toEqual([
      { jobId: job, textDelta: 'ab' },
      { jobId: other, textDelta: 'x' },
      { jobId: job, toolCall: 'read_team_context' },
      { jobId: job, textDelta: 'c' },
    ]);
    expect(decodeProgress(payload ?? '', 'srv_a')).toEqual([]);
  });

  it.each([
    ['ASCII', 'x'],
    ['CJK', '数'],
    ['emoji', '😀'],
    ['lone surrogates', '\ud800'],
  ])('fits n-1 and n %s characters in one payload of at most the limit and splits n+1 losslessly', (_, char) => {
    const n = largestSingle(char);
    for (const count of [n - 1, n]) {
      const payloads = encodeProgress('srv_a', [{ jobId: job, textDelta: char.repeat(count) }]);
      expect(payloads).toHaveLength(1);
      expect(bytes(payloads[0] ?? '')).toBeLessThanOrEqual(PROGRESS_PAYLOAD_BYTES);
    }
    // The limit is reached to within one character.
    const full = encodeProgress('srv_a', [{ jobId: job, textDelta: char.repeat(n) }]);
    expect(bytes(full[0] ?? '')).toBeGreaterThan(PROGRESS_PAYLOAD_BYTES - bytes(JSON.stringify(char)));
    const over = encodeProgress('srv_a', [{ jobId: job, textDelta: char.repeat(n + 1) }]);
    expect(over).toHaveLength(2);
    expect(text(over)).toBe(char.repeat(n + 1));
  });

  it('cuts a tool name to its byte bound', () => {
    const [payload] = encodeProgress('srv_a', [{ jobId: job, toolCall: 'x'.repeat(TOOL_NAME_BYTES + 1) }]);
    expect(decodeProgress(payload ?? '', 'srv_b')).toEqual([{ jobId: job, toolCall: 'x'.repeat(TOOL_NAME_BYTES) }]);
  });

  it('keeps every payload within the limit and loses no text, whatever the deltas', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ job: fc.constantFrom('job_1', 'job_2'), delta: fc.string({ unit: 'binary', maxLength: 3_000 }) }),
          {
            maxLength: 12,
          },
        ),
        fc.integer({ min: 200, max: PROGRESS_PAYLOAD_BYTES }),
        (deltas, maxBytes) => {
          const notices = deltas.map((d) => ({ jobId: asJobId(d.job), textDelta: d.delta }));
          const payloads = encodeProgress('srv_a', notices, maxBytes);
          for (const payload of payloads) expect(bytes(payload)).toBeLessThanOrEqual(maxBytes);
          for (const id of ['job_1', 'job_2']) {
            const sent = deltas
              .filter((d) => d.job === id)
              .map((d) => d.delta)
              .join('');
            const received = payloads
              .flatMap((payload) => decodeProgress(payload, 'srv_b'))
              .filter((notice) => notice.jobId === id)
              .map((notice) => notice.textDelta)
              .join('');
            expect(received).toBe(sent);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('never throws on hostile payloads and keeps only well-formed entries', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((value) => JSON.stringify({ s: 'x', p: value })),
        ),
        (payload) => {
          const notices = decodeProgress(payload, 'srv_b');
          for (const notice of notices) {
            expect(typeof notice.jobId).toBe('string');
            expect(typeof (notice.textDelta ?? notice.toolCall)).toBe('string');
          }
        },
      ),
      { numRuns: 500 },
    );
    expect(decodeProgress('{"s":"x","p":[["job_1","t",1],["job_1","z","a"],["job_1","c","ok"],null]}', 'y')).toEqual([
      { jobId: job, toolCall: 'ok' },
    ]);
  });
});
