// A local commit publishes the jobs it wrote, the record messages it appended, its team and the
// roster it read under the team's lock (`CommittedRows`): each equals the row read back after the
// commit, at every step of a turn, and the live feeds render a local commit's events without
// reading their job, record, team or (read) member again.
import {
  asMemberId,
  asOwnerId,
  asTeamId,
  type CommittedRows,
  type Job,
  type JobId,
  JobPhase,
  type Member,
  type RecordMessage,
  type Team,
  type TeamEvent,
  type TeamId,
} from '@agent-teams/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createTeam } from '../graphql/fixtures.js';
import { createGraphqlStack } from '../graphql/graphql-stack.js';
import { wrapRuntime } from '../scheduler/scheduler-harness.js';
import { openTestApp, TOKENS } from '../support/test-app.js';
import { collectEvents, openLivePool } from './live-clients.js';

const alice = asOwnerId('alice');

/** Every publish of the application: its events and a copy of the rows it said it wrote. */
function recordingSink() {
  const published: {
    events: readonly TeamEvent[];
    jobs: Map<JobId, Job>;
    records: RecordMessage[];
    teams: Map<TeamId, Team>;
    members: Member[];
  }[] = [];
  return {
    published,
    sink: {
      published(events: readonly TeamEvent[], rows?: CommittedRows) {
        published.push({
          events: [...events],
          jobs: new Map(rows?.jobs ?? []),
          records: [...(rows?.records.values() ?? [])],
          teams: new Map(rows?.teams ?? []),
          members: [...(rows?.members.values() ?? [])],
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
      // Every publish of the team's events said how its row stood after them: the last one is the
      // row read back now, and each one's seq head is its own last event's.
      const ofTeam = recorded.published.filter(({ events }) => events.some((e) => e.teamId === team.id));
      for (const { events, teams } of ofTeam) {
        expect(teams.get(team.id)?.lastEventSeq).toBe(events.filter((e) => e.teamId === team.id).at(-1)?.seq);
      }
      expect(ofTeam.at(-1)?.teams.get(team.id)).toEqual((await app.store.findTeams([team.id]))[0]);
      // The enqueue read the roster under the team's lock: published as read, as stored.
      const roster = await app.store.listMembers([team.id]);
      const withRoster = ofTeam.find(({ events }) => events.some((e) => e.jobId === sent.id));
      expect(withRoster?.members).toEqual(roster);
      // Closing the team writes its status before its events: published as closed, as read back.
      const before = recorded.published.length;
      await app.core.lifecycle.close(alice, team.id);
      const closing = recorded.published.slice(before).find(({ teams }) => teams.has(team.id));
      expect(closing?.teams.get(team.id)?.status).toBe('CLOSED');
      expect(closing?.teams.get(team.id)).toEqual((await app.store.findTeams([team.id]))[0]);
    } finally {
      release();
      await app.close();
    }
  });
});

describe('live JobChanged views of a local commit', () => {
  const loaded: string[] = [];
  const teamsLoaded: string[] = [];
  const membersLoaded: string[] = [];
  let recordLoads = 0;
  let stack: Awaited<ReturnType<typeof createGraphqlStack>>;
  afterAll(async () => stack?.close());

  it('show each status of a turn, its record, its team and its roster without reading them back', async () => {
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
          teams: (ids) => {
            teamsLoaded.push(...ids);
            return core.load.teams(ids);
          },
          members: (ids) => {
            membersLoaded.push(...ids);
            return core.load.members(ids);
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
      // The team's creation answered with its members' statuses, which load the team: not counted.
      teamsLoaded.length = 0;
      membersLoaded.length = 0;
      // Through the core, not the mutation: its answer would load the member too.
      const [sent] = await stack.core.requests.send(alice, {
        teamId: asTeamId(team.id),
        memberIds: [asMemberId(String(team.members[0]?.id))],
        text: 'Count the rows',
        clientRequestId: 'rows-live-1',
      });
      const jobId = String(sent?.id);
      const events = await collecting;
      const statuses = events.filter((e) => e.job?.id === jobId).map((e) => e.job?.status);
      expect(statuses.at(-1)).toBe('COMPLETED');
      expect(loaded.filter((id) => id === jobId)).toEqual([]);
      // Every event of the turn was rendered with the team as its commit left it.
      expect(teamsLoaded.filter((id) => id === String(team.id))).toEqual([]);
      // The enqueue's MemberChanged shows the member as its commit read it; the completion's
      // commit read no roster, and its MemberChanged shows the member as the enqueue noted it
      // (SQLite, one server per file: decision 0241).
      const memberChanged = events.filter((e) => e.__typename === 'MemberChanged').length;
      expect(memberChanged).toBeGreaterThanOrEqual(2);
      expect(membersLoaded).toEqual([]);
      expect(events.filter((e) => e.__typename === 'RecordAppended')).toHaveLength(2);
      expect(recordLoads).toBe(0);
    } finally {
      await pool.dispose();
    }
  });
});
