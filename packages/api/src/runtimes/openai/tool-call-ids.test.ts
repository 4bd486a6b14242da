import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  distinctToolCallIds,
  fallbackToolCallPrefix,
  RUN_HASH_CHARS,
  TOOL_CALL_ID_MAX_CHARS,
  takenToolCallIds,
  wireToolCallId,
} from './tool-call-ids.js';

/** A fallback id as the chunk accumulator and the non-streamed answer build it. */
const idOf = (runId: string, step: number, index: number) => `${fallbackToolCallPrefix(runId, step)}_${index}`;

describe('fallback tool-call ids', () => {
  it('fit OpenAI’s 40 characters for the run ids this server makes, woken waits’ included', () => {
    const job = `job_${'0123456789abcdefghij'}${'A1b2C3'}`;
    const runs = [`orun_${job}`, `orun_${job}:wake:${`input_${'x'.repeat(26)}`}`];
    for (const runId of runs) {
      // The old form was already over the limit for these: `call_<run id>_<step>_<index>`.
      expect(`call_${runId}_0_0`.length).toBeGreaterThan(TOOL_CALL_ID_MAX_CHARS);
      expect(idOf(runId, 0, 0).length).toBeLessThanOrEqual(TOOL_CALL_ID_MAX_CHARS);
      expect(idOf(runId, 999, 99).length).toBeLessThanOrEqual(TOOL_CALL_ID_MAX_CHARS);
    }
  });

  it('fit for any run id (ASCII, CJK, emoji, lone surrogates, empty, long) and realistic steps and indexes', () => {
    const runId = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'grapheme', maxLength: 100 }),
      fc.constantFrom('東京のチーム', '🚀🚀🚀', '\uD800', '\uDFFFrun', ''),
    );
    fc.assert(
      fc.property(runId, fc.nat({ max: 1_000_000 }), fc.nat({ max: 10_000 }), (run, step, index) => {
        const id = idOf(run, step, index);
        expect(id.length).toBeLessThanOrEqual(TOOL_CALL_ID_MAX_CHARS);
        expect(id).toMatch(new RegExp(`^call_[A-Za-z0-9_-]{${RUN_HASH_CHARS}}_${step}_${index}$`));
      }),
    );
  });

  it('are the same for the same run and step (a step run again names its calls alike) and differ between runs', () => {
    expect(fallbackToolCallPrefix('orun_job_a', 3)).toBe(fallbackToolCallPrefix('orun_job_a', 3));
    expect(fallbackToolCallPrefix('orun_job_a', 3)).not.toBe(fallbackToolCallPrefix('orun_job_a', 4));
    const prefixes = new Set<string>();
    for (let i = 0; i < 5_000; i += 1) prefixes.add(fallbackToolCallPrefix(`orun_job_${i}`, 0));
    expect(prefixes.size).toBe(5_000);
  });
});

describe('tool-call ids as a request carries them', () => {
  /** `length` UTF-16 code units of `unit` (a lone surrogate, a CJK character, an emoji's two halves). */
  const idOf = (unit: string, length: number) => {
    let id = '';
    while (id.length + unit.length <= length) id += unit;
    return id.padEnd(length, 'x');
  };

  it.each([
    ['ASCII', 'a'],
    ['CJK', '東'],
    ['emoji', '🚀'],
    ['lone surrogate', '\uD800'],
  ])('%s: kept up to 40 characters, hashed past them (n - 1, n, n + 1)', (_name, unit) => {
    for (const length of [TOOL_CALL_ID_MAX_CHARS - 1, TOOL_CALL_ID_MAX_CHARS]) {
      const id = idOf(unit, length);
      expect(id.length).toBe(length);
      expect(wireToolCallId(id)).toBe(id);
    }
    const long = idOf(unit, TOOL_CALL_ID_MAX_CHARS + 1);
    const wire = wireToolCallId(long);
    expect(wire).not.toBe(long);
    expect(wire).toMatch(/^call_[A-Za-z0-9_-]{32}$/);
    expect(wire.length).toBeLessThanOrEqual(TOOL_CALL_ID_MAX_CHARS);
    expect(wireToolCallId(long)).toBe(wire);
  });

  it('maps an old fallback id, and distinct long ids stay distinct', () => {
    const old = `call_orun_job_0123456789abcdefghijA1b2C3_0_0`;
    expect(old.length).toBe(44);
    expect(wireToolCallId(old).length).toBeLessThanOrEqual(TOOL_CALL_ID_MAX_CHARS);
    const wires = new Set<string>();
    for (let i = 0; i < 2_000; i += 1) wires.add(wireToolCallId(`${old}_${i}`));
    expect(wires.size).toBe(2_000);
  });
});

describe('distinct tool-call ids', () => {
  const call = (id: string, name = 'team_message') => ({ id, name, arguments: '{}' });

  it('keeps ids not taken, and gives a repeated one the fallback id of its index', () => {
    const taken = takenToolCallIds(
      [{ toolCalls: [call('call_0')] }, { toolCalls: null }],
      [{ toolCalls: [call('a')] }],
    );
    expect([...taken]).toEqual(['call_0', 'a']);
    const calls = distinctToolCallIds([call('call_0'), call('b'), call('b'), call('c')], taken, 'call_p_3');
    expect(calls.map((c) => c.id)).toEqual(['call_p_3_0', 'b', 'call_p_3_2', 'c']);
    expect(calls[0]?.name).toBe('team_message');
  });

  it('never hands out an id twice, even when the provider sent the fallback id itself', () => {
    const calls = distinctToolCallIds([call('x'), call('call_p_1_1'), call('x')], new Set(['x']), 'call_p_1');
    expect(calls.map((c) => c.id)).toEqual(['call_p_1_0', 'call_p_1_1', 'call_p_1_2']);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'call_p_0_0', 'call_p_0_1', 'call_p_0_1_1'), { maxLength: 8 }),
        (ids) => {
          const out = distinctToolCallIds(
            ids.map((id) => call(id)),
            new Set(['a']),
            'call_p_0',
          ).map((c) => c.id);
          expect(new Set(out).size).toBe(ids.length);
          expect(out).not.toContain('a');
        },
      ),
    );
  });
});
