import { describe, expect, it } from 'vitest';
import { CoalescedTask } from './coalesced-task.js';

function gate() {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('CoalescedTask', () => {
  it('runs once more after the run in flight, however many requests came meanwhile', async () => {
    const gates = [gate(), gate()];
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const task = new CoalescedTask(async () => {
      concurrent += 1;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await gates[runs]?.promise;
      runs += 1;
      concurrent -= 1;
    });
    task.request();
    for (let i = 0; i < 10; i += 1) task.request();
    gates[0]?.open();
    gates[1]?.open();
    await task.settled();
    expect(runs).toBe(2);
    expect(maxConcurrent).toBe(1);
  });

  it('with defer, folds the requests of one turn into one run and runs again for requests during it', async () => {
    let runs = 0;
    const idle: number[] = [];
    let release = () => {};
    const task = new CoalescedTask(
      async () => {
        runs += 1;
        if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
      },
      { defer: (start) => setImmediate(start), onIdle: () => idle.push(runs) },
    );
    for (let i = 0; i < 5; i += 1) task.request();
    expect(task.busy).toBe(true);
    expect(task.running).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(task.running).toBe(true);
    task.request();
    task.request();
    release();
    await task.settled();
    expect(runs).toBe(2);
    expect(idle).toEqual([2]);
    expect(task.busy).toBe(false);
  });

  it('keeps running after a failed run and refuses requests once stopped', async () => {
    let runs = 0;
    const task = new CoalescedTask(async () => {
      runs += 1;
      throw new Error('boom');
    });
    task.request();
    await task.settled();
    task.request();
    await task.stop();
    task.request();
    await task.settled();
    expect(runs).toBe(2);
  });

  it('nextRun waits for the next run only, not the runs it asks for, and never past a stop', async () => {
    let runs = 0;
    const ended: number[] = [];
    const task = new CoalescedTask(
      async () => {
        runs += 1;
        // Every run asks for another, up to 5: a chain `settled` would wait for whole.
        if (runs < 5) task.request();
      },
      { defer: (start) => setImmediate(start) },
    );
    const first = task.nextRun().then(() => ended.push(runs));
    task.request();
    await first;
    expect(ended).toEqual([1]);
    await task.settled();
    expect(runs).toBe(5);
    // Nothing asked for: resolved when the task stops, not left waiting.
    const never = task.nextRun();
    await task.stop();
    await never;
    await task.nextRun();
    expect(runs).toBe(5);
  });
});
