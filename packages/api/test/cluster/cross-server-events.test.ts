import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LiveEvent } from '../live/live-clients.js';
import { type ClusterTeam, createTeam, sendOk } from './cluster-client.js';
import { ClusterHarness, TOKENS } from './cluster-harness.js';
import type { ServerProcess } from './server-process.js';
import { type EventStream, subscribeTeamEvents } from './team-event-stream.js';

let harness: ClusterHarness;
let s1: ServerProcess;
let s2: ServerProcess;
const streams: EventStream[] = [];

beforeAll(async () => {
  harness = await ClusterHarness.create('cluster_events');
  [s1, s2] = (await harness.startMany(2)) as [ServerProcess, ServerProcess];
}, 90_000);
afterAll(async () => {
  for (const stream of streams) await stream.close();
  await harness?.dispose();
});
beforeEach(({ onTestFailed }) => harness.printOnFailure(onTestFailed));

function subscribe(server: ServerProcess, teamId: string, afterSeq?: number): EventStream {
  const stream = subscribeTeamEvents(server, TOKENS.alice, teamId, afterSeq);
  streams.push(stream);
  return stream;
}

/** Waits until every job is finished in the database, then until `stream` has delivered the log's last seq. */
async function drain(stream: EventStream, teamId: string, jobIds: readonly string[]): Promise<number> {
  await vi.waitFor(
    async () => {
      const jobs = await harness.observer.jobs([teamId]);
      expect(jobs.filter((job) => jobIds.includes(job.id)).map((job) => job.phase)).toEqual(
        jobIds.map(() => 'COMPLETED'),
      );
    },
    { timeout: 20_000, interval: 50 },
  );
  const last = await harness.observer.lastEventSeq(teamId);
  await vi.waitFor(
    () => {
      expect(stream.error()).toBeNull();
      expect(stream.events.at(-1)?.seq ?? -1).toBeGreaterThanOrEqual(last);
    },
    { timeout: 15_000, interval: 20 },
  );
  return last;
}

/** `from..to`, both included. */
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const shape = (events: readonly LiveEvent[]) => events.map((event) => `${event.seq}:${event.__typename}`);
const completedIn = (events: readonly LiveEvent[]) =>
  events.filter((e) => e.__typename === 'JobChanged' && e.job?.status === 'COMPLETED').map((e) => e.job?.id);

describe('teamEvents across two servers on one PostgreSQL database', () => {
  it('delivers mutations made on either server to subscribers on both, in seq order, with no gap', async () => {
    const team = await createTeam(s1, TOKENS.alice, 'events-both-ways', 4);
    const head = await harness.observer.lastEventSeq(team.id);
    // afterSeq = the head: live delivery, and no race with the subscription becoming active.
    const on1 = subscribe(s1, team.id, head);
    const on2 = subscribe(s2, team.id, head);

    // Concurrent commits from both servers: each server's own events interleave with the other's.
    const jobs = await Promise.all(
      team.members.map((member, i) =>
        sendOk(i % 2 === 0 ? s1 : s2, TOKENS.alice, {
          teamId: team.id,
          memberId: member.id,
          text: `!reply from server ${(i % 2) + 1}`,
          clientRequestId: `both-ways-${i}`,
        }),
      ),
    );
    const last = Math.max(await drain(on1, team.id, jobs), await drain(on2, team.id, jobs));

    for (const stream of [on1, on2]) {
      expect(stream.events.map((event) => event.seq)).toEqual(range(head + 1, last));
      expect(new Set(completedIn(stream.events))).toEqual(new Set(jobs));
      expect(stream.events.every((event) => event.team.id === team.id)).toBe(true);
    }
    expect(shape(on2.events)).toEqual(shape(on1.events));
  });

  it('resumes on the other server with afterSeq: the missed events first, then live ones, none twice', async () => {
    const team = await createTeam(s1, TOKENS.alice, 'events-resume', 2);
    const [first, second] = team.members as [ClusterTeam['members'][number], ClusterTeam['members'][number]];
    const early = await sendOk(s1, TOKENS.alice, {
      teamId: team.id,
      memberId: first.id,
      text: '!reply before the subscription',
      clientRequestId: 'resume-early',
    });
    await vi.waitFor(async () => expect((await harness.observer.jobs([team.id]))[0]?.phase).toBe('COMPLETED'), {
      timeout: 20_000,
      interval: 50,
    });
    const missedUpTo = await harness.observer.lastEventSeq(team.id);
    // Resume from the middle of what server 1 wrote, as a client that saw part of it would.
    const afterSeq = Math.floor(missedUpTo / 2);
    const on2 = subscribe(s2, team.id, afterSeq);
    await vi.waitFor(() => expect(on2.events.at(-1)?.seq).toBe(missedUpTo), { timeout: 15_000, interval: 20 });

    const late = await sendOk(s1, TOKENS.alice, {
      teamId: team.id,
      memberId: second.id,
      text: '!reply after the subscription',
      clientRequestId: 'resume-late',
    });
    const last = await drain(on2, team.id, [early, late]);

    expect(on2.events.map((event) => event.seq)).toEqual(range(afterSeq + 1, last));
    // The late job's events were committed on server 1 after the subscription on server 2 began.
    expect(completedIn(on2.events)).toContain(late);
  });
});
