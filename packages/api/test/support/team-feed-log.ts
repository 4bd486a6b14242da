import { asOwnerId, asTeamId, type Core, type TeamEvent, teamChangedEvent } from '@agent-teams/core';
import { PULL_OR_WAKE, PULL_READY, type WakingEvents } from '../../src/server/live/ready-events.js';

/** The owner and team of the fake feeds' events. */
export const owner = asOwnerId('alice');
export const teamId = asTeamId('team_1');

/** A log the fake core of a team feed reads from; `commit` appends without publishing. */
export function fakeLog() {
  const log: TeamEvent[] = [];
  let reads = 0;
  const event = (seq: number): TeamEvent => teamChangedEvent(teamId, owner, seq, '2026-11-30T00:00:00.000Z');
  const core = {
    events: {
      read: async (_owner: unknown, _team: unknown, afterSeq: number, limit: number) => {
        reads += 1;
        return log.filter((e) => e.seq > afterSeq).slice(0, limit);
      },
    },
    teams: { get: async () => ({ id: teamId }) },
  } as unknown as Core;
  return {
    core,
    commit: (seq: number) => {
      const e = event(seq);
      log.push(e);
      return e;
    },
    drop: (upTo: number) => log.splice(0, log.filter((e) => e.seq <= upTo).length),
    get reads() {
      return reads;
    },
  };
}

export async function take(iterator: AsyncIterator<{ seq: number }>, count: number): Promise<number[]> {
  const seqs: number[] = [];
  while (seqs.length < count) {
    const step = await iterator.next();
    if (step.done) break;
    seqs.push(step.value.seq);
  }
  return seqs;
}

/** Like `take`, read as the live server reads: pulls, and a wake when nothing is ready (no `next()`). */
export function takeWoken(iterator: AsyncIterator<{ seq: number }>, count: number): Promise<number[]> {
  const source = iterator as AsyncIterator<{ seq: number }> & WakingEvents<{ seq: number }>;
  return new Promise((resolve, reject) => {
    const seqs: number[] = [];
    const pass = (): void => {
      try {
        while (seqs.length < count) {
          const step = source[PULL_READY]() ?? source[PULL_OR_WAKE](pass);
          if (step === undefined) return;
          if (step.done) break;
          seqs.push(step.value.seq);
        }
        resolve(seqs);
      } catch (error) {
        reject(error);
      }
    };
    pass();
  });
}
