// A local commit publishes the jobs it wrote and the record messages it appended as stored
// (`CommittedRows`): each equals the row read back after the commit, at every step of a turn, and
// the live feeds render a local commit's JobChanged and RecordAppended events without reading
// them again.
import {
  asOwnerId,
  type CommittedRows,
  type Job,
  type JobId,
  JobPhase,
  type RecordMessage,
  type TeamEvent,
} from '@agent-teams/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createTeam, sendRequest } from '../graphql/fixtures.js';
import { createGraphqlStack } from '../graphql/graphql-stack.js';
import { wrapRuntime } from '../scheduler/scheduler-harness.js';
import { openTestApp, TOKENS } from '../support/test-app.js';
import { collectEvents, openLivePool } from './live-clients.js';

const alice = asOwnerId('alice');

/** Every publish of the application: its events and a copy of the rows it said it wrote. */
function recordingSink() {
  const published: { events: readonly TeamEvent[]; jobs: Map<JobId, Job>; records: RecordMessage[] }[] = [];
  return {
    published,
    sink: {
      published(events: readonly TeamEvent[], rows?: CommittedRows) {
        published.push({
          events: [...events],
          jobs: new Map(rows?.jobs ?? []),
          records: [...(rows?.records.values() ?? [])],
        });
      },
    },
    /** The job as the last publish that named it said it was stored. */
    last(jobId: JobId): Job | undefined {
      for (let i = published.length - 1; i >= 0; i -= 1) {
        const job = published[i]?.jobs.get(jobId);
        if (job !== undefined) return job;
      }
      return undefined;
    },
  };
}

async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 1000; i += 1) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('jobs published with their commit', () => {
  it('equal the stored row after the enqueue with its admission, and after the completion', async () => {
    const recorded = recordingSink();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const app = await openTestApp({
      events: recorded.sink,
      wrapRuntime: (runtime) =>
        wrapRuntime(runtime, {
          start: async (args) => {
            await gate;
            return runtime.start(args);
          },
        }),
    });
    try {
      const team = await app.core.teams.create(alice, {
        clientRequestId: 'rows-team',
        name: 'Rows',
        goal: 'Test',
        members: [
          { name: 'A', agentId: 'researcher' },
          { name: 'B', agentId: 'reviewer' },
        ],
      });
      const [member] = await app.core.teams.members([team.id]);
      if (member === undefined) throw new Error('no member');
      const [sent] = await app.core.requests.send(alice, {
        teamId: team.id,
        memberIds: [member.id],
        text: 'Count the rows',
        clientRequestId: 'rows-1',
      });
      if (sent === undefined) throw new Error('no job');
      const stored = async () => (await app.store.findJobs([sent.id]))[0];
      // Admitted (it rode the enqueue, or a pass): its start waits at the gate.
      const admitted = await until(async () => {
        const job = await stored();
        return job?.phase === JobPhase.ADMITTING ? job : undefined;
      }, 'ADMITTING');
      expect(recorded.last(sent.id)).toEqual(admitted);
      release();
      const done = await until(
        async () => {
          const job = await stored();
          return job?.phase === JobPhase.COMPLETED ? job : undefined;
        },
        `COMPLETED (now ${(await stored())?.phase})`,
      );
      await until(() => (recorded.last(sent.id)?.phase === JobPhase.COMPLETED ? true : undefined), 'the last publish');
      expect(recorded.last(sent.id)).toEqual(done);
      // Every publish that logged a JobChanged of the job also said how it stored it.
      const changed = recorded.published.filter(({ events }) => events.some((e) => e.jobId === sent.id));
      expect(changed.length).toBeGreaterThanOrEqual(2);
      for (const { jobs } of changed) expect(jobs.get(sent.id)?.id).toBe(sent.id);
      // The request's record and the result's, each as stored.
      const records = recorded.published.flatMap((entry) => entry.records);
      expect(records.map((record) => record.kind)).toEqual(['REQUEST', 'COMPLETED']);
      expect(records).toEqual(await app.store.findRecords(records.map((record) => record.id)));
    } finally {
      release();
      await app.close();
    }
  });
});

describe('live JobChanged views of a local commit', () => {
  const loaded: string[] = [];
  let recordLoads = 0;
  let stack: Awaited<ReturnType<typeof createGraphqlStack>>;
  afterAll(async () => stack?.close());

  it('show each status of a turn and its record without reading them back', async () => {
    stack = await createGraphqlStack({
      core: (core) => ({
        ...core,
        load: {
          ...core.load,
          jobs: (ids) => {
            loaded.push(...ids);
            return core.load.jobs(ids);
          },
          records: (ids) => {
            recordLoads += ids.length;
            return core.load.records(ids);
          },
        },
      }),
    });
    const { pool } = await openLivePool(stack.server);
    try {
      const team = await createTeam(stack);
      const afterSeq = (await stack.core.teams.get(alice, team.id))?.lastEventSeq ?? 0;
      let started: () => void = () => undefined;
      const subscribed = new Promise<void>((resolve) => {
        started = resolve;
      });
      const listeners = stack.hubListeners();
      const collecting = collectEvents(
        pool.client(TOKENS.alice),
        { teamId: team.id, afterSeq },
        // The team's only request: done at its COMPLETED and its two record messages.
        (events) =>
          events.some((e) => e.job?.status === 'COMPLETED') &&
          events.filter((e) => e.__typename === 'RecordAppended').length === 2,
        started,
      );
      await subscribed;
      await until(() => (stack.hubListeners() > listeners ? true : undefined), 'the subscription');
      const sent = await sendRequest(stack, team.id, [String(team.members[0]?.id)], 'Count the rows');
      const jobId = String(sent[0]);
      const events = await collecting;
      const statuses = events.filter((e) => e.job?.id === jobId).map((e) => e.job?.status);
      expect(statuses.at(-1)).toBe('COMPLETED');
      expect(loaded.filter((id) => id === jobId)).toEqual([]);
      expect(events.filter((e) => e.__typename === 'RecordAppended')).toHaveLength(2);
      expect(recordLoads).toBe(0);
    } finally {
      await pool.dispose();
    }
  });
});
