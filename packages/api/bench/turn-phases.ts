import { ms, summarize } from './harness/stats.js';
import type { TurnTrace } from './harness/turn-stack.js';

/** The steps of one turn in order, each a duration in milliseconds (NaN when a stamp is missing). */
export type Phases = Readonly<Record<PhaseName, number>> & {
  readonly commits: number;
  /** The model call's request body in bytes (the runtime's call; NaN when the provider saw none). */
  readonly bodyBytes: number;
};

/** The steps {@link phasesOf} cuts a turn into, in the order they happen. */
export const PHASES = [
  '`sendRequest` called → enqueue committed',
  'enqueue committed → mutation answer received',
  'enqueue committed → admission committed',
  'admission committed → runtime `start` entered',
  'runtime `start` → provider received the request',
  'provider received → provider finished the answer',
  'provider finished → last runtime `poll` (after `settled`)',
  'last `poll` → completion committed',
  'completion committed → subscriber saw COMPLETED',
] as const;

type PhaseName = (typeof PHASES)[number];

/**
 * Cuts one turn's trace into {@link PHASES}: the admission commit is the last commit naming the
 * job before its `start`, the completion commit the last one before the subscriber saw COMPLETED.
 */
export function phasesOf(trace: TurnTrace, called: number, accepted: number, seen: number): Phases {
  const commits = trace.commits.map((commit) => commit.at);
  const start = trace.start ?? Number.NaN;
  const enqueue = commits[0] ?? Number.NaN;
  const admission = commits.filter((at) => at <= start).at(-1) ?? Number.NaN;
  const completion = commits.filter((at) => at <= seen).at(-1) ?? Number.NaN;
  const poll = trace.polls.filter((at) => at <= completion).at(-1) ?? Number.NaN;
  const received = trace.provider?.receivedAt ?? Number.NaN;
  const answered = trace.provider?.answeredAt ?? Number.NaN;
  return {
    '`sendRequest` called → enqueue committed': enqueue - called,
    'enqueue committed → mutation answer received': accepted - enqueue,
    'enqueue committed → admission committed': admission - enqueue,
    'admission committed → runtime `start` entered': start - admission,
    'runtime `start` → provider received the request': received - start,
    'provider received → provider finished the answer': answered - received,
    'provider finished → last runtime `poll` (after `settled`)': poll - answered,
    'last `poll` → completion committed': completion - poll,
    'completion committed → subscriber saw COMPLETED': seen - completion,
    commits: commits.length,
    bodyBytes: trace.provider?.bytes ?? Number.NaN,
  };
}

/** One row per phase (p50, p99, mean over the samples), then the commits naming a job and the model call's body size. */
export function phaseRows(samples: readonly Phases[]): string[][] {
  const rows = PHASES.map((name) => {
    const s = summarize(samples.map((phases) => phases[name]).filter(Number.isFinite));
    return [name, ms(s.p50), ms(s.p99), ms(s.mean)];
  });
  const commits = summarize(samples.map((phases) => phases.commits));
  rows.push([
    'commits with an event of the job (count)',
    String(commits.p50),
    String(commits.p99),
    commits.mean.toFixed(2),
  ]);
  // The history a member's call carries grows with its conversation (decision 0242 trimmed it).
  const body = summarize(samples.map((phases) => phases.bodyBytes).filter(Number.isFinite));
  const kib = (bytes: number) => (Number.isFinite(bytes) ? (bytes / 1024).toFixed(1) : 'n/a');
  rows.push(['model call request body (KiB)', kib(body.p50), kib(body.p99), kib(body.mean)]);
  return rows;
}
