import { describe, expect, it } from 'vitest';
import { AckGrace } from './ack-grace.js';

describe('AckGrace', () => {
  it('holds each run back once, and not again once acknowledged or asked twice', () => {
    const acks = new AckGrace();
    expect(acks.defer('job_1:start')).toBe(true);
    expect(acks.defer('job_1:start')).toBe(false);
    // Asked again after that (a restart of the same key): held back once more.
    expect(acks.defer('job_1:start')).toBe(true);
    acks.forget('job_1:start');
    expect(acks.defer('job_1:start')).toBe(true);
    expect(acks.defer('job_2:start')).toBe(true);
    expect(acks.defer('job_2:start')).toBe(false);
  });

  it('never holds a run back with a grace of 0', () => {
    const acks = new AckGrace(0);
    expect(acks.defer('job_1:start')).toBe(false);
    expect(acks.defer('job_1:start')).toBe(false);
  });

  it('forgets the oldest run past 1,024 held back', () => {
    const acks = new AckGrace();
    for (let i = 0; i < 1_025; i += 1) acks.defer(`job_${i}`);
    // job_0 was forgotten: held back again. The newest are remembered.
    expect(acks.defer('job_0')).toBe(true);
    expect(acks.defer('job_1024')).toBe(false);
    expect(acks.defer('job_2')).toBe(false);
  });
});
