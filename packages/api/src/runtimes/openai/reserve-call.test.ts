// A model call's reservation across its retries (`reserveCall`'s `again`): which release it keeps,
// and whether the turn's final answer may ride the job write (only while no reservation waits).
import { asJobId, asTeamId, JobErrorCode } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import type { HeldSpend, SpendGuard } from '../spend-guard.js';
import { parseOpenAiSettings } from './openai-settings.js';
import { reserveCall } from './reserve-call.js';

/** A guard answering `answers` in turn, each release logged by the answer's name. */
function scriptedGuard(answers: readonly ('none' | 'held' | 'refused')[]) {
  const released: string[] = [];
  let at = 0;
  const guard: SpendGuard = {
    reserve: async (): Promise<HeldSpend> => {
      const answer = answers[at] ?? 'none';
      const name = `${answer}#${at}`;
      at += 1;
      if (answer === 'refused') return { ok: false, message: 'over budget' };
      return { ok: true, reserved: answer === 'held', release: async () => void released.push(name) };
    },
  };
  return { guard, released };
}

function call() {
  return {
    teamId: asTeamId('team_1'),
    jobId: asJobId('job_1'),
    settings: parseOpenAiSettings({ model: 'm', baseUrl: 'http://127.0.0.1:9/v1' }),
    finish: {} as { mayRide?: boolean },
  };
}

describe('reserveCall', () => {
  it('takes the release of a row written by a retry when the first reservation found no budget', async () => {
    const { guard, released } = scriptedGuard(['none', 'held', 'held']);
    const c = call();
    const held = await reserveCall(guard, c, 100);
    if (!held.ok) throw new Error('refused');
    expect([held.reserved, c.finish.mayRide]).toEqual([false, true]);
    await held.again?.();
    // Held from now on: the final answer must not ride, and the release is the retry's row's.
    expect([held.reserved, c.finish.mayRide]).toEqual([true, false]);
    await held.again?.();
    await held.release();
    expect(released).toEqual(['held#1']);
  });

  it('keeps the first release of a call reserved from the start (the same id and holder)', async () => {
    const { guard, released } = scriptedGuard(['held', 'held']);
    const c = call();
    const held = await reserveCall(guard, c, 100);
    if (!held.ok) throw new Error('refused');
    expect(c.finish.mayRide).toBe(false);
    await held.again?.();
    await held.release();
    expect(released).toEqual(['held#0']);
  });

  it('refuses a retry the budget no longer holds, BUDGET_EXHAUSTED, still releasing what it held', async () => {
    const { guard, released } = scriptedGuard(['held', 'refused']);
    const held = await reserveCall(guard, call(), 100);
    if (!held.ok) throw new Error('refused');
    await expect(held.again?.()).rejects.toMatchObject({
      name: 'ModelCallError',
      kind: 'failed',
      code: JobErrorCode.BUDGET_EXHAUSTED,
      message: 'over budget',
    });
    await held.release();
    expect(released).toEqual(['held#0']);
  });

  it('lets the answer ride and retries nothing without a spend guard; answers a refusal as such', async () => {
    const c = call();
    const held = await reserveCall(null, c, 100);
    expect(held).toMatchObject({ ok: true, reserved: false });
    expect(held.ok && held.again).toBeUndefined();
    expect(c.finish.mayRide).toBe(true);
    expect(await reserveCall(scriptedGuard(['refused']).guard, call(), 100)).toEqual({
      ok: false,
      message: 'over budget',
    });
  });
});
