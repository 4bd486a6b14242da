import { describe, expect, it } from 'vitest';
import { OwnCommits } from '../scheduler/own-commits.js';
import { logFields, withLogFields } from './log-context.js';

describe('the shared async frame', () => {
  it('keeps the log fields inside an own write, and the own write inside added log fields, across awaits', async () => {
    const own = new OwnCommits<string>();
    const seen: unknown[] = [];
    await withLogFields({ requestId: 'r1' }, () =>
      own.write('job_1', async () => {
        await Promise.resolve();
        seen.push([logFields(), own.current()]);
        await withLogFields({ jobId: 'job_1' }, async () => {
          await new Promise((resolve) => setImmediate(resolve));
          seen.push([logFields(), own.current()]);
        });
        seen.push([logFields(), own.current()]);
      }),
    );
    expect(seen).toEqual([
      [{ requestId: 'r1' }, 'job_1'],
      [{ requestId: 'r1', jobId: 'job_1' }, 'job_1'],
      [{ requestId: 'r1' }, 'job_1'],
    ]);
    // Outside both: nothing.
    expect([logFields(), own.current()]).toEqual([{}, undefined]);
  });

  it('does not let one OwnCommits see another one’s write, nor a write that has returned', async () => {
    const first = new OwnCommits<string>();
    const second = new OwnCommits<string>();
    let later: Promise<unknown> = Promise.resolve();
    await first.write('a', async () => {
      expect(second.current()).toBeUndefined();
      later = new Promise((resolve) => setTimeout(() => resolve(first.current()), 5));
    });
    expect(await later).toBeUndefined();
  });
});
