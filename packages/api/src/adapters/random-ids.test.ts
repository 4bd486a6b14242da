import { describe, expect, it } from 'vitest';
import { createRandomIds, ID_RANDOM_BYTES } from './random-ids.js';

describe('createRandomIds', () => {
  it('mints prefixed ids of 16 random bytes in base64url', () => {
    const ids = createRandomIds();
    const minted = [ids.teamId(), ids.memberId(), ids.jobId(), ids.recordId(), ids.conversationId()];
    const prefixes = ['team_', 'member_', 'job_', 'record_', 'conversation_'];
    minted.forEach((id, i) => {
      const prefix = prefixes[i] as string;
      expect(id.startsWith(prefix)).toBe(true);
      const token = id.slice(prefix.length);
      expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(ID_RANDOM_BYTES);
    });
    expect(ids.messageId()).toMatch(/^message_[A-Za-z0-9_-]{22}$/);
    expect(ids.taskId()).toMatch(/^task_[A-Za-z0-9_-]{22}$/);
  });

  it('never repeats an id across many refills of its pool (each random byte used once)', () => {
    const ids = createRandomIds();
    // 256 ids per pool: 10,000 ids cross the refill 39 times.
    const tokens = Array.from({ length: 10_000 }, () => ids.jobId().slice('job_'.length));
    expect(new Set(tokens).size).toBe(tokens.length);
    // No 8-byte half appears twice either: overlapping slices of the pool would share halves.
    const halves = tokens.flatMap((token) => {
      const hex = Buffer.from(token, 'base64url').toString('hex');
      return [hex.slice(0, 16), hex.slice(16)];
    });
    expect(new Set(halves).size).toBe(halves.length);
  });
});
