import { describe, expect, it } from 'vitest';
import { medianOf, saturationNote } from './turn-round.js';

describe('the saturation note of the turn-overhead section', () => {
  it('reads the added time a closed loop of workers sets, and the server CPU per turn the goal needs', () => {
    const note = saturationNote(
      { cpuMsPerTurnC8: 2, directP50MsC8: 1.5, serverCoresC8: 0.95, serverCoresC1: 0.5, addedP50MsC8: 12.5 },
      8,
    );
    // 8 × 2 − 2 × 1.5 = 13; (3 + 2 × 1.5) / 8 = 0.75, 2 / 0.75 = 2.7×.
    expect(note).toContain('8 × 2.00 ms − 2 × 1.50 ms = 13.0 ms');
    expect(note).toContain('measured added p50 of 12.5 ms');
    expect(note).toContain('= 0.75 ms, 2.7× less server CPU per turn');
    expect(note).toContain('used 0.95 cores (0.50 at one turn at a time)');
    expect(note).toContain('At 8 concurrent turns the server is saturated.');
  });

  it('says so when the server was not busy all the time', () => {
    const note = saturationNote({ cpuMsPerTurnC8: 1, directP50MsC8: 1, serverCoresC8: 0.6, addedP50MsC8: 4 }, 8);
    expect(note).toContain('At 8 concurrent turns the server is not saturated.');
    expect(note).toContain('used 0.60 cores');
  });

  it('takes the middle sample', () => {
    expect(medianOf([3, 1, 2])).toBe(2);
    expect(medianOf([4, 1, 3, 2])).toBe(3);
    expect(medianOf([])).toBeNaN();
  });
});
