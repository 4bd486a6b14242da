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
export function roundRow(
  label: string,
  index: number,
  series: Series,
): { row: string[]; p50: number; p99: number; directP50: number } {
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
    directP50: direct.p50,
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

/** Server cores busy from which the saturation note calls the server saturated. */
const SATURATED_CORES = 0.85;

/** The middle of `values` (of an even count, the upper middle); NaN when empty. */
export function medianOf(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

/**
 * What sets the added time at the highest concurrency: a closed loop of N workers whose turns each
 * take S of the server's CPU finishes about one turn per S once the server is busy all the time.
 */
export function saturationNote(metrics: Readonly<Record<string, number>>, n: number): string {
  const s = metrics[`cpuMsPerTurnC${n}`] ?? Number.NaN;
  const d = metrics[`directP50MsC${n}`] ?? Number.NaN;
  const needed = (3 + 2 * d) / n;
  const cores = metrics[`serverCoresC${n}`] ?? Number.NaN;
  // One event loop carries a turn's work: near one core busy, it is the bottleneck.
  const state = cores >= SATURATED_CORES ? 'is saturated' : 'is not saturated';
  return `**At ${n} concurrent turns the server ${state}.** Over those rounds the server process used ${cores.toFixed(2)} cores (${(metrics.serverCoresC1 ?? Number.NaN).toFixed(2)} at one turn at a time), and a turn's work runs on its one event-loop thread. A closed loop of N workers, each alternating a turn and a direct call of D, on a server that spends S of CPU per turn (all its threads; most of it on the event loop) finishes about one turn per S once that loop is busy all the time: a turn then takes about N·S − D and adds about N·S − 2·D. Here ${n} × ${ms(s)} − 2 × ${ms(d)} = ${ms(n * s - 2 * d)}, against a measured added p50 of ${ms(metrics[`addedP50MsC${n}`] ?? Number.NaN)} (median of the rounds). The goal (added p50 ≤ 3 ms at ${n}) then needs S ≤ (3 ms + 2·D) / ${n} = ${ms(needed)}, ${(s / needed).toFixed(1)}× less server CPU per turn than now (or the turns spread over more than one thread).`;
}
