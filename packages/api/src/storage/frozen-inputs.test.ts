import { asJobId, asTeamId, type TurnInput } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { FROZEN_INPUT_MAX_CHARS, FROZEN_INPUTS_KEPT, keepFrozenInput, readInput } from './frozen-inputs.js';

const input = (jobId: string, text: string): TurnInput => ({
  kind: 'request',
  jobId: asJobId(jobId),
  teamId: asTeamId('team_1'),
  text,
  memberName: 'Writer 数据 😀',
  requesterName: null,
  receipt: null,
  context: { team_id: 'team_1', goal: 'Ship it', members: [{ id: 'member_1', name: 'W' }], messages: [] },
});

/** Keeps `n` fresh inputs under ids `${prefix}_0` … and returns them with their texts. */
function keepMany(prefix: string, n: number): { id: string; json: string; value: TurnInput }[] {
  return Array.from({ length: n }, (_, i) => {
    const id = `${prefix}_${i}`;
    const value = input(id, `text ${i}`);
    const json = JSON.stringify(value);
    keepFrozenInput(id, json, value);
    return { id, json, value };
  });
}

describe('frozen inputs kept by this process', () => {
  it('gives an input back as frozen when the stored text is the text it stored', () => {
    const [kept] = keepMany('job_same', 1);
    if (kept === undefined) throw new Error('nothing kept');
    expect(readInput(kept.id, kept.json)).toBe(kept.value);
    // A copy of the text (as a driver returns it) is the same text.
    expect(readInput(kept.id, `${kept.json.slice(0, 5)}${kept.json.slice(5)}`)).toBe(kept.value);
  });

  it('parses a text this process did not store for the job: another freeze, or none', () => {
    const [kept] = keepMany('job_other', 1);
    if (kept === undefined) throw new Error('nothing kept');
    const refrozen = input(kept.id, 'frozen again elsewhere 数据 😀 \ud800');
    const read = readInput(kept.id, JSON.stringify(refrozen));
    expect(read).not.toBe(kept.value);
    expect(read).toEqual(refrozen);
    expect(readInput('job_never_kept', kept.json)).toEqual(kept.value);
    expect(readInput('job_never_kept', kept.json)).not.toBe(kept.value);
    expect(readInput(kept.id, null)).toBeNull();
  });

  it(`keeps the last ${FROZEN_INPUTS_KEPT} inputs frozen (n - 1, n, n + 1), the oldest dropped first`, () => {
    const all = keepMany('job_many', FROZEN_INPUTS_KEPT + 1);
    const given = (i: number) => {
      const entry = all[i];
      if (entry === undefined) throw new Error(`no input ${i}`);
      return readInput(entry.id, entry.json) === entry.value;
    };
    expect(given(0)).toBe(false);
    for (const i of [1, 2, FROZEN_INPUTS_KEPT - 1, FROZEN_INPUTS_KEPT]) expect(given(i)).toBe(true);
    // Kept again, the oldest becomes the newest and outlives the next one kept.
    const first = all[1];
    if (first === undefined) throw new Error('no input 1');
    keepFrozenInput(first.id, first.json, first.value);
    keepMany('job_more', 1);
    expect(given(1)).toBe(true);
    expect(given(2)).toBe(false);
  });

  it('freezes what it keeps, nested objects and arrays too', () => {
    const [kept] = keepMany('job_frozen', 1);
    if (kept === undefined) throw new Error('nothing kept');
    const context = kept.value.context as { members: { name: string }[] };
    expect(Object.isFrozen(kept.value)).toBe(true);
    expect(Object.isFrozen(context)).toBe(true);
    expect(Object.isFrozen(context.members)).toBe(true);
    expect(Object.isFrozen(context.members[0])).toBe(true);
    expect(() => {
      (context.members[0] as { name: string }).name = 'changed';
    }).toThrow(TypeError);
  });

  for (const [unit, units] of [
    ['a', 1],
    ['数', 1],
    ['😀', 2],
    // JSON writes a lone surrogate as a six-character escape.
    ['\ud800', 6],
  ] as const) {
    it(`keeps an input of at most ${FROZEN_INPUT_MAX_CHARS} characters of JSON (n - 1, n, n + 1; text of ${JSON.stringify(unit)})`, () => {
      const sized = (id: string, length: number) => {
        const room = length - JSON.stringify(input(id, '')).length;
        const text = unit.repeat(Math.floor(room / units)) + 'a'.repeat(room % units);
        const value = input(id, text);
        const json = JSON.stringify(value);
        expect(json.length).toBe(length);
        keepFrozenInput(id, json, value);
        return readInput(id, json) === value;
      };
      expect(sized('job_size_a', FROZEN_INPUT_MAX_CHARS - 1)).toBe(true);
      expect(sized('job_size_b', FROZEN_INPUT_MAX_CHARS)).toBe(true);
      expect(sized('job_size_c', FROZEN_INPUT_MAX_CHARS + 1)).toBe(false);
      // One too long for a job kept before drops the kept one: its text is not read as current.
      const [small] = keepMany('job_size_d', 1);
      if (small === undefined) throw new Error('nothing kept');
      sized(small.id, FROZEN_INPUT_MAX_CHARS + 1);
      expect(readInput(small.id, small.json)).not.toBe(small.value);
    });
  }
});
