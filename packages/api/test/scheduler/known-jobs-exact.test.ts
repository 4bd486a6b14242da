import { isDeepStrictEqual } from 'node:util';
import { type EventSink, type JobId, JobPhase, RuntimeError } from '@agent-teams/core';
import BetterSqlite3 from 'better-sqlite3';
import type { Selectable } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { KnownJobs } from '../../src/scheduler/known-jobs.js';
import type { JobsTable } from '../../src/storage/database-types.js';
import { toJob } from '../../src/storage/row-mappers.js';
import {
  closeHarnesses,
  OWNER,
  openHarness,
  removeTempDirs,
  waitFor,
  waitForPhases,
  wrapRuntime,
} from './scheduler-harness.js';

afterAll(async () => {
  await closeHarnesses();
  removeTempDirs();
});

/**
 * A second `KnownJobs` fed by the same local commits as the scheduler's (the application's
 * `events` listener runs first, in the same call), each of its notes compared with the row the
 * database holds right after every commit.
 *
 * @remarks The writes of one SQLite batch share a COMMIT and are published one after the other, so
 * at a write's publication the database may already hold a later write of the same batch: such a
 * difference is a suspect until a later publication names that job. A suspect no publication ever
 * explains is a change of a job that no event told the scheduler of.
 */
function mirrored() {
  const known = new KnownJobs();
  const named = new Set<JobId>();
  const suspects = new Map<JobId, { known: JobPhase; stored: JobPhase | null }>();
  const checkedPhases = new Set<JobPhase>();
  let read: ((jobId: JobId) => Selectable<JobsTable> | undefined) | null = null;
  const check = (): void => {
    if (read === null) return;
    for (const jobId of named) {
      const note = known.get(jobId);
      if (note === undefined) continue;
      const row = read(jobId);
      const stored = row === undefined ? null : toJob(row);
      checkedPhases.add(note.phase);
      if (!isDeepStrictEqual(stored, note)) suspects.set(jobId, { known: note.phase, stored: stored?.phase ?? null });
    }
  };
  const sink: EventSink = {
    published(events, rows) {
      known.heard(events, rows);
      for (const event of events) {
        if (event.jobId === null) continue;
        named.add(event.jobId);
        suspects.delete(event.jobId);
      }
      check();
    },
  };
  return {
    sink,
    checkedPhases,
    /** The differences no publication explained, after a last check (call when nothing is in flight). */
    unexplained() {
      check();
      return [...suspects].map(([jobId, seen]) => ({ jobId, ...seen }));
    },
    /** Reads rows through a connection of its own (WAL: every commit is visible once made). */
    reading(file: string) {
      const reader = new BetterSqlite3(file, { readonly: true });
      const statement = reader.prepare('select * from jobs where id = ?');
      read = (jobId) => statement.get(jobId) as Selectable<JobsTable> | undefined;
      return () => reader.close();
    },
  };
}

describe('KnownJobs against the database (SQLite)', () => {
  it('holds every active job exactly as stored after each commit, through retries, cancels, answers and deadlines', async () => {
    const mirror = mirrored();
    let failedStarts = 0;
    const h = await openHarness({
      events: mirror.sink,
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          start: (args) => {
            // One transient failure of the first start of a "flaky" turn: the step retries.
            if (args.input.text.includes('flaky') && failedStarts === 0) {
              failedStarts += 1;
              return Promise.reject(new RuntimeError('transient', 'provider hiccup'));
            }
            return runtime.start(args);
          },
        }),
    });
    const closeReader = mirror.reading(h.file);
    const { team, members } = await h.team(['researcher', 'reviewer', 'hasty']);
    const [m0, m1, m2] = members;
    if (!m0 || !m1 || !m2) throw new Error('no members');

    // Acknowledged while running (past the 40 ms grace), then completed.
    const [long] = await h.send(team, [m0], '!sleep 120');
    // Cancelled while running.
    const [cancelled] = await h.send(team, [m1], '!sleep 600000');
    // Past the hasty agent's 300 ms deadline.
    const [late] = await h.send(team, [m2], '!sleep 5000');
    if (!long || !cancelled || !late) throw new Error('no jobs');
    await waitForPhases(h, [cancelled.id], [JobPhase.RUNNING]);
    await h.core.jobs.cancel(OWNER, cancelled.id);
    await waitForPhases(h, [long.id, cancelled.id, late.id], [JobPhase.COMPLETED, JobPhase.CANCELLED, JobPhase.FAILED]);

    // Asks, is answered (RESUMING), completes; a turn whose first start fails transiently.
    const [asking] = await h.send(team, [m0], '!ask Which region?');
    const [flaky] = await h.send(team, [m1], 'flaky turn');
    if (!asking || !flaky) throw new Error('no jobs');
    const waiting = await waitFor(async () => {
      const job = await h.job(asking.id);
      return job.phase === JobPhase.WAITING_INPUT ? job : null;
    }, 'waiting for input');
    await h.core.jobs.respond(OWNER, {
      jobId: asking.id,
      response: 'eu-west',
      clientRequestId: 'answer-1',
      inputRequestId: waiting.pendingInput?.requestId ?? null,
    });
    await waitForPhases(h, [asking.id, flaky.id], [JobPhase.COMPLETED, JobPhase.COMPLETED]);
    await h.scheduler.idle();

    expect(failedStarts).toBe(1);
    expect(mirror.unexplained()).toEqual([]);
    expect([...mirror.checkedPhases].sort()).toEqual(
      [JobPhase.ADMITTING, JobPhase.CANCELLING, JobPhase.RESUMING, JobPhase.RUNNING].sort(),
    );
    closeReader();
    await h.close();
  });

  it('flags a change of a job that no event told of (the check itself can fail)', async () => {
    const mirror = mirrored();
    const h = await openHarness({ events: mirror.sink });
    const closeReader = mirror.reading(h.file);
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [m0, m1] = members;
    if (!m0 || !m1) throw new Error('no members');
    const [running] = await h.send(team, [m0], '!sleep 600000');
    if (!running) throw new Error('no job');
    await waitForPhases(h, [running.id], [JobPhase.RUNNING]);
    // Another writer, beside the server: what an exclusive server rules out (decision 0240).
    const writer = new BetterSqlite3(h.file);
    writer.prepare('update jobs set updated_at = ? where id = ?').run('2026-01-01T00:00:00.000Z', running.id);
    writer.close();
    // Any later commit makes the mirror look again.
    const [other] = await h.send(team, [m1], 'hello');
    if (!other) throw new Error('no job');
    await waitForPhases(h, [other.id], [JobPhase.COMPLETED]);
    expect(mirror.unexplained()).toEqual([{ jobId: running.id, known: JobPhase.RUNNING, stored: JobPhase.RUNNING }]);
    closeReader();
    await h.close();
  });
});
