import {
  asAgentId,
  asOwnerId,
  asRunId,
  type Core,
  hasLoneSurrogate,
  type Job,
  type JobId,
  type JobView,
  jsonBytes,
  Limits,
  type Member,
  type RecordMessage,
  type Team,
  type TeamStore,
  type TransitionOutcome,
  type TurnInput,
  transition,
} from '@agent-teams/core';
import { createMemoryTeamStore, FakeClock, SequentialIds, StaticCatalog } from '@agent-teams/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app/create-app.js';

/** Texts that stress JSON escaping and UTF-8 widths, and share substrings so queries match. */
const piece = fc.constantFrom(
  'ab',
  'AB',
  'Ab',
  '"',
  '\\',
  '\u0001',
  '\u001f',
  '\n',
  '\t',
  '数据',
  '😀',
  'é',
  '\u2028',
  ' x ',
);
const text = fc
  .oneof(
    { weight: 4, arbitrary: fc.array(piece, { minLength: 1, maxLength: 12 }).map((parts) => parts.join('')) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }) },
    // Long ones: a whole record (6,000 bytes) of characters that escape to six bytes each.
    { weight: 1, arbitrary: fc.constantFrom('\u0001'.repeat(3_999), '"'.repeat(3_999), '\\'.repeat(3_999)) },
  )
  .map((s) => `t${s}`)
  // Storable text only: U+0000 and unpaired surrogates are refused at the edge (INVALID_INPUT).
  .filter((s) => !hasLoneSurrogate(s) && !s.includes('\u0000'));

interface Scenario {
  readonly texts: readonly { text: string; member: 0 | 1; complete: boolean }[];
  readonly memberFilter: 0 | 1 | null;
  readonly query: string | null;
  readonly limit: number | null;
  /** New requests sent before each page is read. */
  readonly arrivals: readonly number[];
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  texts: fc.array(fc.record({ text, member: fc.constantFrom(0 as const, 1 as const), complete: fc.boolean() }), {
    minLength: 1,
    maxLength: 30,
  }),
  memberFilter: fc.constantFrom(null, 0 as const, 1 as const),
  query: fc.constantFrom(null, 'ab', '"', '\\', '数', '😀', '\u0001', 'zzz'),
  limit: fc.constantFrom(null, 1, 2, 3, 8, 20),
  arrivals: fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 6 }),
});

const FAKE_INPUT = (job: Job): TurnInput => ({
  kind: 'request',
  jobId: job.id,
  teamId: job.teamId,
  text: job.text,
  memberName: 'm',
  requesterName: null,
  receipt: null,
  context: null,
});

/** A store under test inside the application (no scheduler, no runtimes), with its ids and clock. */
interface Opened {
  readonly app: App;
  readonly store: TeamStore;
  readonly ids: SequentialIds;
  readonly clock: FakeClock;
  close(): Promise<void>;
}

/** Builds the application over the SQL store (`database`) or the in-memory one (`database: null`). */
async function openStore(database: ':memory:' | null): Promise<Opened> {
  const ids = new SequentialIds();
  const clock = new FakeClock();
  const app = await createApp({
    database,
    ...(database === null ? { store: () => createMemoryTeamStore({ ids }) } : {}),
    runtimes: () => [],
    catalog: new StaticCatalog(),
    clock,
    ids,
    scheduler: false,
  });
  return { app, store: app.store, ids, clock, close: () => app.close() };
}

/** A team of two members in the store under test, and how to send and complete its jobs. */
async function setup(opened: Opened, run: number) {
  const { store, ids, clock } = opened;
  const core: Core = opened.app.core;
  const owner = asOwnerId(`owner-${run}`);
  const members = [0, 1].map((i) => ({
    id: ids.memberId(),
    name: `M${i}`,
    agentId: asAgentId('researcher'),
    conversationId: ids.conversationId(),
  }));
  const { team } = await store.createTeam(
    { id: ids.teamId(), owner, clientRequestId: `c${run}`, fingerprint: 'f', name: 'T', goal: 'G', members },
    { now: new Date(clock.nowMs()).toISOString(), maxTeams: 20 },
  );
  let n = 0;
  const send = async (body: string, member: Member): Promise<Job> => {
    clock.advance(1);
    n += 1;
    const [job] = await core.requests.send(owner, {
      teamId: team.id,
      memberIds: [member.id],
      text: body,
      clientRequestId: `k${n}`,
    });
    return job as Job;
  };
  const complete = async (job: Job, answer: string) => {
    clock.advance(1);
    const now = new Date(clock.nowMs()).toISOString();
    const ctx = { now, ids };
    await store.updateJob(
      job.id,
      (current) => {
        const frozen = transition(current, { type: 'FREEZE', input: FAKE_INPUT(current), runKey: current.id }, ctx);
        if (!frozen.ok) return frozen;
        const acked = transition(frozen.job, { type: 'ACKNOWLEDGE', runId: asRunId(`run_${current.id}`) }, ctx);
        if (!acked.ok) return acked;
        const done = transition(acked.job, { type: 'COMPLETE', answer }, ctx);
        return done.ok ? ({ ...done, effects: done.effects } satisfies TransitionOutcome) : done;
      },
      { now },
    );
  };
  return { core, team, members: (await store.listMembers([team.id])) as Member[], send, complete };
}

const fold = (s: string) => s.toLowerCase();

function expectedRecords(all: readonly RecordMessage[], s: Scenario, members: readonly Member[]): string[] {
  const member = s.memberFilter === null ? null : members[s.memberFilter]?.id;
  return [...all]
    .filter((r) => member === null || r.memberId === member || r.fromMemberId === member)
    .filter((r) => s.query === null || fold(r.text).includes(fold(s.query)))
    .sort((a, b) => b.seq - a.seq)
    .map((r) => r.id);
}

function expectedResults(all: readonly JobView[], s: Scenario, members: readonly Member[]): string[] {
  const member = s.memberFilter === null ? null : members[s.memberFilter]?.id;
  return [...all]
    .filter((j) => j.kind === 'REQUEST' && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(j.phase))
    .filter((j) => member === null || j.memberId === member || j.requester.memberId === member)
    .filter(
      (j) =>
        s.query === null ||
        fold(j.text).includes(fold(s.query)) ||
        (j.result !== null && fold(j.result.text).includes(fold(s.query))),
    )
    .sort((a, b) => b.seq - a.seq)
    .map((j) => j.id);
}

type Page = { next_cursor: string | null; cursor_expired: boolean } & Record<string, unknown>;

/** Walks every page of a read tool, sending `arrivals` new requests between pages. */
async function walk(
  invoke: (args: Record<string, unknown>) => Promise<unknown>,
  listKey: 'records' | 'results',
  idKey: 'id' | 'job_id',
  s: Scenario,
  members: readonly Member[],
  arrive: (count: number) => Promise<void>,
): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let step = 0; step < 200; step += 1) {
    // New records arrive between pages (never before the first: the expectation is taken then).
    if (step > 0) await arrive(s.arrivals[step - 1] ?? 0);
    const args: Record<string, unknown> = {
      ...(s.memberFilter === null ? {} : { member_id: members[s.memberFilter]?.id }),
      ...(s.query === null ? {} : { query: s.query }),
      ...(s.limit === null ? {} : { limit: s.limit }),
      ...(cursor === null ? {} : { cursor }),
    };
    const page = (await invoke(args)) as Page;
    expect(jsonBytes(page)).toBeLessThanOrEqual(Limits.toolResponseBytes);
    expect(page.cursor_expired).toBe(false);
    const items = page[listKey] as Record<string, unknown>[];
    expect(items.length).toBeLessThanOrEqual(s.limit ?? Limits.pageSize.default);
    // Progress: a page that promises more is never empty.
    if (page.next_cursor !== null) expect(items.length).toBeGreaterThan(0);
    seen.push(...items.map((item) => String(item[idKey])));
    if (page.next_cursor === null) return seen;
    cursor = page.next_cursor;
  }
  throw new Error('the walk never ended');
}

const STORES: readonly [string, () => Promise<Opened>][] = [
  ['memory', () => openStore(null)],
  ['sqlite', () => openStore(':memory:')],
];

describe.each(STORES)('paging the member read tools (%s store)', (_name, open) => {
  it('returns every matching record exactly once, newest first, within budget, while records arrive', async () => {
    const opened = await open();
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          run += 1;
          const { core, team, members, send, complete } = await setup(opened, run);
          const [m0, m1] = members as [Member, Member];
          // The caller: a queued request in M0's conversation (tools need an unfinished job there).
          const caller = await send('caller', m0);
          for (const t of s.texts) {
            const job = await send(t.text, t.member === 0 ? m1 : m0);
            if (t.complete) await complete(job, `answer ${t.text}`);
          }
          const records = await opened.store.recentRecords(team.id, Limits.recordRetained);
          const jobs = (await opened.store.listJobs(team.id, {}, { first: 100, afterSeq: null })).items;
          const wantRecords = expectedRecords(records, s, members);
          const wantResults = expectedResults(jobs, s, members);
          let arrived = 0;
          const arrive = async (count: number) => {
            for (let i = 0; i < count; i += 1) {
              arrived += 1;
              await send(`late ab ${arrived}`, m1);
            }
          };
          const history = await walk(
            (args) => core.tools.invoke(caller.id as JobId, 'read_team_history', args),
            'records',
            'id',
            s,
            members,
            arrive,
          );
          expect(history).toEqual(wantRecords);
          const results = await walk(
            (args) => core.tools.invoke(caller.id as JobId, 'search_team_results', args),
            'results',
            'job_id',
            s,
            members,
            arrive,
          );
          expect(results).toEqual(wantResults);
          expect(team.id).toBeTruthy();
        }),
        { numRuns: 12 },
      );
    } finally {
      await opened.close();
    }
  }, 120_000);

  it('refuses a cursor replayed with other filters (CURSOR_MISMATCH) or in another team', async () => {
    const opened = await open();
    try {
      const a = await setup(opened, 1000);
      const b = await setup(opened, 1001);
      const caller = await a.send('caller', a.members[0] as Member);
      const other = await b.send('caller', b.members[0] as Member);
      for (let i = 0; i < 4; i += 1) await a.send(`ab ${i}`, a.members[1] as Member);
      const first = (await a.core.tools.invoke(caller.id, 'read_team_history', { limit: 1, query: 'ab' })) as Page;
      expect(first.next_cursor).not.toBeNull();
      const reuse = (args: Record<string, unknown>, jobId: JobId = caller.id) =>
        a.core.tools.invoke(jobId, 'read_team_history', { limit: 1, cursor: first.next_cursor, ...args });
      await expect(reuse({ query: 'AB ' })).rejects.toMatchObject({ code: 'CURSOR_MISMATCH' });
      await expect(reuse({})).rejects.toMatchObject({ code: 'CURSOR_MISMATCH' });
      await expect(reuse({ query: 'ab' }, other.id)).rejects.toMatchObject({ code: 'CURSOR_MISMATCH' });
      await expect(
        a.core.tools.invoke(caller.id, 'search_team_results', { query: 'ab', cursor: first.next_cursor }),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(reuse({ query: 'ab', limit: 21 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(((await reuse({ query: 'ab' })) as Page).cursor_expired).toBe(false);
    } finally {
      await opened.close();
    }
  });

  it('answers an empty page with cursor_expired when the anchor left the retained record', async () => {
    const opened = await open();
    try {
      const a = await setup(opened, 2000);
      const caller = await a.send('caller', a.members[0] as Member);
      await a.send('oldest', a.members[1] as Member);
      const first = (await a.core.tools.invoke(caller.id, 'read_team_history', { limit: 1 })) as Page;
      // 100 more record messages rotate the anchor out (50 requests, each announced and completed).
      for (let i = 0; i < 50; i += 1) await a.complete(await a.send(`filler ${i}`, a.members[1] as Member), 'ok');
      const next = (await a.core.tools.invoke(caller.id, 'read_team_history', {
        limit: 1,
        cursor: first.next_cursor,
      })) as Page;
      expect(next).toEqual({ records: [], next_cursor: null, cursor_expired: true });
    } finally {
      await opened.close();
    }
  });
});

export type { Team };
