import { asOwnerId } from '@agent-teams/core';
import type { BenchChild } from './harness/bench-child.js';
import { ms, summarize } from './harness/stats.js';
import type { RoundAnswer, TurnStack } from './harness/turn-stack.js';
import { turnBounds } from './turn-cpu.js';
import { type Phases, phasesOf } from './turn-phases.js';
import type { TurnSample } from './turn-user-process.js';

/** Requests per team stay below the 100-request limit. */
export const PER_TEAM = 90;

/** Most uncounted turns one warm-up owner runs (its teams stay within an owner's team limit). */
const WARMUP_PER_OWNER = 400;

/** One round's series at one concurrency. */
export interface Series {
  readonly turns: number[];
  readonly accepted: number[];
  readonly direct: number[];
  readonly phases: Phases[];
  /** Each turn's stamps bounding the CPU steps (`turn-cpu.ts`), for the turns that have them all. */
  readonly bounds: number[][];
}

/**
 * Runs one round at one concurrency with a fresh owner: the server creates the teams, the user's
 * process (`turn-user-process.ts`) subscribes to them, then runs `concurrency` workers, each a
 * turn and a direct call per sample (order alternating), the provider giving `answer` to both;
 * phases come from the server's trace of each job and the provider's stamps, all on the machine's
 * monotonic clock.
 */
export async function round(
  stack: TurnStack,
  user: BenchChild,
  token: string,
  owner: number | string,
  concurrency: number,
  count: number,
  warmup: number,
  answer: RoundAnswer = 'instant',
): Promise<Series> {
  const perWorker = Math.ceil((count + warmup) / PER_TEAM);
  const teams: { teamId: string; memberIds: string[] }[] = [];
  for (let i = 0; i < concurrency * perWorker; i += 1) {
    const team = await stack.team(asOwnerId(`turn-owner-${owner}`));
    teams.push({ teamId: team.teamId, memberIds: team.members.map((member) => member.id) });
  }
  const { samples } = await user.request<{ type: 'round-done'; samples: TurnSample[] }>(
    {
      type: 'round',
      url: stack.url,
      token,
      teams,
      concurrency,
      count,
      warmup,
      label: `${owner}`,
      perTeam: PER_TEAM,
      answer,
    },
    'round-done',
    600_000,
  );
  const series: Series = { turns: [], accepted: [], direct: [], phases: [], bounds: [] };
  for (const sample of samples) {
    series.turns.push(sample.seen - sample.called);
    series.accepted.push(sample.seen - sample.accepted);
    series.direct.push(sample.direct);
    const trace = stack.trace(sample.jobId);
    if (sample.provider) trace.provider = { lastUser: '', ...sample.provider };
    series.phases.push(phasesOf(trace, sample.called, sample.accepted, sample.seen));
    const bounds = turnBounds(trace, sample);
    if (bounds !== null) series.bounds.push(bounds);
  }
  stack.clearTraces();
  return series;
}

/** The table row of one round (concurrency label, round number, the percentiles) and its added p50 / p99. */
export function roundRow(label: string, index: number, series: Series): { row: string[]; p50: number; p99: number } {
  const turn = summarize(series.turns);
  const accepted = summarize(series.accepted);
  const direct = summarize(series.direct);
  const p50 = turn.p50 - direct.p50;
  const p99 = turn.p99 - direct.p99;
  return {
    row: [
      label,
      `${index}`,
      String(turn.count),
      `${ms(turn.p50)} / ${ms(turn.p99)}`,
      `${ms(accepted.p50)} / ${ms(accepted.p99)}`,
      `${ms(direct.p50)} / ${ms(direct.p99)}`,
      `**${ms(p50)} / ${ms(p99)}**`,
    ],
    p50,
    p99,
  };
}

/**
 * The tokens and owners (`turn-token-warmup<i>` → `turn-owner-warmup<i>`) of warm-ups of `parts`
 * turns each, run one after the other ({@link warmUp} with the owner the last one returned).
 */
export function warmupTokens(...parts: number[]): [string, string][] {
  const owners = parts.reduce((sum, turns) => sum + Math.ceil(turns / WARMUP_PER_OWNER), 0);
  return Array.from({ length: owners }, (_, i) => [`turn-token-warmup${i}`, `turn-owner-warmup${i}`]);
}

/**
 * Runs `turns` uncounted sequential turns, owners `from` onwards, at most {@link WARMUP_PER_OWNER}
 * each; returns the next owner's index.
 */
export async function warmUp(stack: TurnStack, user: BenchChild, turns: number, from = 0): Promise<number> {
  let owner = from;
  for (let left = turns; left > 0; left -= WARMUP_PER_OWNER, owner += 1) {
    await round(stack, user, `turn-token-warmup${owner}`, `warmup${owner}`, 1, Math.min(left, WARMUP_PER_OWNER), 0);
  }
  return owner;
}
