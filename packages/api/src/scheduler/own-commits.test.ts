import { type JobId, type TeamEvent, TeamEventKind } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { OwnCommits, ownCommitEvent } from './own-commits.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('OwnCommits', () => {
  it('names the write only inside its own store call, not in work it started or in other chains', async () => {
    const own = new OwnCommits<string>();
    expect(own.current()).toBeUndefined();
    const seen: Record<string, string | undefined> = {};
    let later: Promise<void> = Promise.resolve();
    let resume = () => {};
    const paused = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const write = own.write('step', async () => {
      seen.start = own.current();
      await paused;
      seen.afterAwait = own.current();
      // Work started inside inherits the context and runs after the write returned.
      later = turn().then(() => {
        seen.started = own.current();
      });
      return 7;
    });
    // Another chain running while the write is paused is not the write.
    await turn();
    seen.other = own.current();
    resume();
    expect(await write).toBe(7);
    await later;
    expect(seen).toEqual({ start: 'step', afterAwait: 'step', other: undefined, started: undefined });
  });

  it('closes the write when its work throws', async () => {
    const own = new OwnCommits<string>();
    let inside: () => string | undefined = () => undefined;
    await expect(
      own.write('step', async () => {
        inside = () => own.current();
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(inside()).toBeUndefined();
  });
});

describe('ownCommitEvent', () => {
  const ours = (jobId: JobId) => jobId === 'job_a';
  const event = (kind: TeamEvent['kind'], jobId: string | null) => ({ kind, jobId }) as TeamEvent;

  it.each([
    [TeamEventKind.JOB_CHANGED, 'job_a', true],
    [TeamEventKind.JOB_CHANGED, 'job_b', false],
    [TeamEventKind.JOB_CHANGED, null, false],
    [TeamEventKind.MESSAGE_DELIVERED, 'job_a', true],
    [TeamEventKind.MESSAGE_DELIVERED, 'job_b', false],
    [TeamEventKind.MEMBER_CHANGED, null, true],
    [TeamEventKind.RECORD_APPENDED, null, true],
    [TeamEventKind.MESSAGE_SENT, null, false],
    [TeamEventKind.TEAM_CHANGED, null, false],
    [TeamEventKind.TASK_CHANGED, null, false],
    [TeamEventKind.MEMBER_RETIRED, null, false],
  ] as const)('%s of %s leaves admission as it was: %s', (kind, jobId, expected) => {
    expect(ownCommitEvent(event(kind, jobId), ours)).toBe(expected);
  });
});
