import { describe, expect, it } from 'vitest';
import { TeamQueues } from './team-queues.js';

/** Gives the other queued work a turn of the event loop. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('TeamQueues', () => {
  it('runs the tasks of one team one after another, in order', async () => {
    const queues = new TeamQueues();
    const log: string[] = [];
    let running = 0;
    let maxRunning = 0;
    const task = (name: string) => async () => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      running -= 1;
    };
    await Promise.all([queues.enqueue('team_1', task('a')), queues.enqueue('team_1', task('b'))]);
    expect(maxRunning).toBe(1);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
  });

  it('never makes one team wait for another', async () => {
    const queues = new TeamQueues();
    let release: () => void = () => {};
    const blocked = queues.enqueue('team_1', () => new Promise<void>((resolve) => (release = resolve)));
    let otherDone = false;
    await queues.enqueue('team_2', async () => {
      otherDone = true;
    });
    expect(otherDone).toBe(true);
    release();
    await blocked;
  });

  it('keeps going after a task throws', async () => {
    const queues = new TeamQueues();
    let ran = false;
    void queues.enqueue('team_1', async () => {
      throw new Error('boom');
    });
    await queues.enqueue('team_1', async () => {
      ran = true;
    });
    expect(ran).toBe(true);
  });

  it('drains within its bound and reports a task that is still running', async () => {
    const queues = new TeamQueues();
    void queues.enqueue('team_1', () => new Promise(() => {}));
    expect(await queues.drain(20)).toBe(false);
    const idle = new TeamQueues();
    expect(await idle.drain(20)).toBe(true);
  });
});
