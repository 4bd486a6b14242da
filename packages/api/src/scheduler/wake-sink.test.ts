import { describe, expect, it } from 'vitest';
import { createWakeSink } from './wake-sink.js';

describe('createWakeSink', () => {
  it('wakes attached listeners for published events only, until detached', () => {
    const sink = createWakeSink();
    let wakes = 0;
    const detach = sink.attach(() => {
      wakes += 1;
    });
    sink.published([]);
    expect(wakes).toBe(0);
    sink.published([
      {
        teamId: 't',
        owner: 'o',
        seq: 1,
        kind: 'JOB_CHANGED',
        jobId: null,
        recordId: null,
        memberId: null,
        createdAt: '',
      },
    ] as never);
    expect(wakes).toBe(1);
    detach();
    sink.published([{}] as never);
    expect(wakes).toBe(1);
  });
});
