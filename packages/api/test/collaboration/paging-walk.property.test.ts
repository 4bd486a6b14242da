import {
  hasLoneSurrogate,
  type JobId,
  type JobView,
  jsonBytes,
  Limits,
  type Member,
  type RecordMessage,
} from '@agent-teams/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Page, STORES, setup } from './paging-stores.js';

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
});
