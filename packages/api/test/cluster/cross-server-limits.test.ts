import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ClusterTeam, createTeam, gqlData, type SendOutcome, sendRequest } from './cluster-client.js';
import { ClusterHarness, TOKENS } from './cluster-harness.js';
import type { ServerProcess } from './server-process.js';

let harness: ClusterHarness;
let s1: ServerProcess;
let s2: ServerProcess;

beforeAll(async () => {
  harness = await ClusterHarness.create('cluster_limits');
  [s1, s2] = (await harness.startMany(2)) as [ServerProcess, ServerProcess];
}, 90_000);
afterAll(async () => harness?.dispose());
beforeEach(({ onTestFailed }) => harness.printOnFailure(onTestFailed));

/** Waits until every job of these teams is COMPLETED and returns them. */
async function allCompleted(teams: readonly ClusterTeam[], count: number, timeout = 60_000) {
  return vi.waitFor(
    async () => {
      const jobs = await harness.observer.jobs(teams.map((team) => team.id));
      expect(jobs).toHaveLength(count);
      expect(jobs.filter((job) => job.phase !== 'COMPLETED')).toEqual([]);
      return jobs;
    },
    { timeout, interval: 100 },
  );
}

const jobIdOf = (outcome: SendOutcome) => ('jobId' in outcome ? outcome.jobId : null);

describe('limits that must hold across two servers on one PostgreSQL database', () => {
  it('keeps 16 long requests sent through both servers within 8 active jobs, reaches 8, and finishes all', {
    timeout: 90_000,
  }, async () => {
    const teams = [
      { token: TOKENS.alice, team: await createTeam(s1, TOKENS.alice, 'cap-alice') },
      { token: TOKENS.bob, team: await createTeam(s2, TOKENS.bob, 'cap-bob') },
    ];
    const sampler = harness.observer.sampleActive(10);
    // One request per member (each its own conversation), every other one through the other server.
    const sends = teams.flatMap(({ token, team }) =>
      team.members.map((member, i) =>
        sendRequest(i % 2 === 0 ? s1 : s2, token, {
          teamId: team.id,
          memberId: member.id,
          text: `!sleep 1500\n!reply ${member.name} done`,
          clientRequestId: `cap-${i}`,
        }),
      ),
    );
    const outcomes = await Promise.all(sends);
    expect(outcomes.filter((outcome) => jobIdOf(outcome) === null)).toEqual([]);

    const jobs = await allCompleted(
      teams.map((t) => t.team),
      16,
    );
    const seen = await sampler.stop();
    expect(seen.max).toBe(8);
    expect(jobs.map((job) => job.result_text).sort()).toEqual(
      teams.flatMap(({ team }) => team.members.map((m) => `slept 1500 ms\n${m.name} done`)).sort(),
    );
  });

  it('makes exactly 50 jobs from 1,000 concurrent sends of 50 keys spread over both servers', {
    timeout: 90_000,
  }, async () => {
    // Ten teams of two owners, five keys each: the keys race on ten team locks, not on one.
    const teams = await Promise.all(
      Array.from({ length: 10 }, (_, t) => {
        const token = t % 2 === 0 ? TOKENS.alice : TOKENS.bob;
        return createTeam(t < 5 ? s1 : s2, token, `idem-${t}`, 5).then((team) => ({ team, token }));
      }),
    );
    const keyed = (key: number) => {
      const { team, token } = teams[Math.floor(key / 5)] as (typeof teams)[number];
      const member = team.members[key % 5] as ClusterTeam['members'][number];
      return {
        token,
        input: { teamId: team.id, memberId: member.id, text: `!reply key ${key}`, clientRequestId: `k${key}` },
      };
    };
    // Each key is sent 20 times, 10 through each server, interleaved with every other key.
    const answers = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) => {
        const key = i % 50;
        const { token, input } = keyed(key);
        return sendRequest(Math.floor(i / 50) % 2 === 0 ? s1 : s2, token, input).then((outcome) => ({ key, outcome }));
      }),
    );

    expect(answers.filter((a) => jobIdOf(a.outcome) === null)).toEqual([]);
    const idsByKey = new Map<number, Set<string | null>>();
    for (const { key, outcome } of answers) idsByKey.set(key, (idsByKey.get(key) ?? new Set()).add(jobIdOf(outcome)));
    expect([...idsByKey.values()].map((ids) => ids.size)).toEqual(Array.from({ length: 50 }, () => 1));
    const ids = new Set(answers.map((a) => jobIdOf(a.outcome)));
    expect(ids.size).toBe(50);

    const jobs = await allCompleted(
      teams.map((t) => t.team),
      50,
    );
    expect(new Set(jobs.map((job) => job.id))).toEqual(ids);
  });

  it('holds the 100-request cap when 130 distinct sends race through both servers', { timeout: 90_000 }, async () => {
    const team = await createTeam(s2, TOKENS.alice, 'request-cap');
    const sends = Array.from({ length: 130 }, (_, i) =>
      sendRequest(i % 2 === 0 ? s1 : s2, TOKENS.alice, {
        teamId: team.id,
        memberId: (team.members[i % team.members.length] as ClusterTeam['members'][number]).id,
        text: `!reply capped ${i}`,
        clientRequestId: `cap-${i}`,
      }),
    );
    const outcomes = await Promise.all(sends);

    const made = outcomes.filter((outcome) => jobIdOf(outcome) !== null);
    const refused = outcomes.flatMap((outcome) => ('code' in outcome ? [outcome.code] : []));
    expect(made).toHaveLength(100);
    expect(refused).toEqual(Array.from({ length: 30 }, () => 'REQUEST_LIMIT'));
    // Every accepted request is a row already; the refused ones left none.
    expect(await harness.observer.jobs([team.id])).toHaveLength(100);
    const data = await gqlData(s1, TOKENS.alice, 'query($id: ID!) { team(id: $id) { capacity { requests } } }', {
      id: team.id,
    });
    expect(data.team.capacity.requests).toBe(100);
  });
});
