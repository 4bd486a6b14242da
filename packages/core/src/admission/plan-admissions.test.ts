import { describe, expect, it } from 'vitest';
import { asConversationId, asJobId, asOwnerId, asTeamId, type OwnerId } from '../model/ids.js';
import { type AdmissionCandidate, EMPTY_ROUND, type RoundState } from './admission-types.js';
import { planAdmissions, settledRound } from './plan-admissions.js';

const A = asOwnerId('alice');
const B = asOwnerId('bob');
const C = asOwnerId('carol');

/** A candidate `job_<seq>` of `owner` in conversation `conv` (default: its own conversation). */
function cand(owner: OwnerId, seq: number, conv = `conversation_${owner}_${seq}`): AdmissionCandidate {
  return {
    jobId: asJobId(`job_${seq}`),
    owner,
    teamId: asTeamId(`team_${owner}`),
    conversationId: asConversationId(conv),
    seq,
  };
}

const plan = (candidates: AdmissionCandidate[], free: number, round: RoundState = EMPTY_ROUND, active = 0) =>
  planAdmissions({ active, capacity: active + free, candidates, round });

describe('planAdmissions', () => {
  it('admits nothing at capacity 0 or when active jobs fill every slot, and never preempts', () => {
    expect(plan([cand(A, 1)], 0).admit).toEqual([]);
    expect(planAdmissions({ active: 9, capacity: 8, candidates: [cand(A, 1)], round: EMPTY_ROUND }).admit).toEqual([]);
    expect(
      planAdmissions({ active: 6, capacity: 8, candidates: [1, 2, 3].map((s) => cand(A, s)), round: EMPTY_ROUND })
        .admit,
    ).toEqual(['job_1', 'job_2']);
  });

  it('admits at most one job per conversation in a pass, the oldest', () => {
    const result = plan([cand(A, 5, 'conversation_x'), cand(A, 3, 'conversation_x'), cand(B, 4, 'conversation_x')], 8);
    expect(result.admit).toEqual(['job_3']);
  });

  it('serves owners one job per round, oldest first within an owner', () => {
    const result = plan([cand(A, 1), cand(A, 2), cand(A, 3), cand(B, 4), cand(C, 5)], 4);
    expect(result.admit).toEqual(['job_1', 'job_4', 'job_5', 'job_2']);
    expect(result.round).toEqual({ rotation: [A, B, C], served: [A] });
  });

  it('gives spare capacity to any owner that still has candidates', () => {
    const result = plan([cand(A, 1), cand(A, 2), cand(A, 3), cand(A, 6), cand(B, 4)], 8);
    expect(result.admit).toEqual(['job_1', 'job_4', 'job_2', 'job_3', 'job_6']);
  });

  it('carries the unfinished round over to the next pass', () => {
    const backlog = [cand(A, 1), cand(A, 4), cand(B, 2), cand(B, 5), cand(C, 3), cand(C, 6)];
    const first = plan(backlog, 2);
    expect(first.admit).toEqual(['job_1', 'job_2']);
    expect(first.round).toEqual({ rotation: [A, B, C], served: [A, B] });
    const rest = backlog.filter((c) => !first.admit.includes(c.jobId));
    const second = plan(rest, 2, first.round);
    // Carol has not been served in this round yet, so she goes before Alice's second job.
    expect(second.admit).toEqual(['job_3', 'job_4']);
    expect(second.round).toEqual({ rotation: [A, B, C], served: [A] });
  });

  it('drops an owner without candidates and lets it re-join at the tail', () => {
    const round = { rotation: [A, B, C], served: [] };
    const without = plan([cand(B, 2), cand(C, 3)], 0, round);
    expect(without.round.rotation).toEqual([B, C]);
    const back = plan([cand(A, 1), cand(B, 2), cand(C, 3)], 3, without.round);
    expect(back.round.rotation).toEqual([B, C, A]);
    expect(back.admit).toEqual(['job_2', 'job_3', 'job_1']);
  });

  it('appends new owners in the order of their oldest candidate', () => {
    const result = plan([cand(C, 9), cand(B, 7), cand(B, 2), cand(A, 5)], 0, { rotation: [C], served: [] });
    expect(result.round.rotation).toEqual([C, B, A]);
  });

  it('keeps only owners still in the rotation in the carried-over round', () => {
    const result = plan([cand(B, 2)], 0, { rotation: [A, B], served: [A, B] });
    expect(result.round).toEqual({ rotation: [B], served: [B] });
  });

  it('starts a new round when every owner with work left was served', () => {
    const result = plan([cand(A, 1), cand(B, 2)], 1, { rotation: [A, B], served: [A, B] });
    expect(result.admit).toEqual(['job_1']);
    expect(result.round.served).toEqual([A]);
  });

  it('settles the round of a pass that admitted every candidate to what the next, empty pass stores', () => {
    const both = [cand(A, 1), cand(B, 2)];
    const all = plan(both, 4, { rotation: [C], served: [C] });
    expect(all.admit).toHaveLength(2);
    const next = planAdmissions({ active: 2, capacity: 4, candidates: [], round: all.round });
    expect(settledRound(all, both)).toEqual(next.round);
    expect(next.round).toEqual(EMPTY_ROUND);
    // n−1 admitted of n: somebody still waits, the round carries over as planned.
    const some = plan(both, 1);
    expect(some.admit).toHaveLength(1);
    expect(settledRound(some, both)).toBe(some.round);
    // Admitting non-candidates settles nothing.
    expect(settledRound({ admit: [asJobId('job_9')], round: all.round }, [cand(A, 1)])).toBe(all.round);
  });
});
