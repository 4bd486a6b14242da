// The team context a pass freezes (decision 0244): one read of a team's newest records and one
// context per write, a record appended by an earlier freeze of the pass seen by the next ones,
// the frozen input kept as frozen (shared, deep-frozen) and read back without parsing only while
// the stored text is the very text written.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  asOwnerId,
  EMPTY_ROUND,
  type FreezeContext,
  type Job,
  JobPhase,
  Limits,
  RecordKind,
  type TeamContextJson,
  transition,
} from '@agent-teams/core';
import { SequentialIds } from '@agent-teams/testkit';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { freezeJob } from '../../src/scheduler/freeze-job.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { SCRIPTED_ONLY, WRITER_CATALOG } from '../support/freeze-catalog.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { queueOneEach } from '../support/queued-requests.js';

const ids = new SequentialIds();
const owner = asOwnerId('alice');
const now = '2026-12-05T00:00:00.000Z';
const agents = WRITER_CATALOG;
const runtimes = SCRIPTED_ONLY;

/** A READY team of three members, each with one queued request of full-sized text (数据 😀). */
function threeQueued(store: KyselyTeamStore): Promise<Job[]> {
  return queueOneEach(store, ids, {
    owner,
    now,
    names: ['A', 'B', 'C'],
    agentId: 'writer',
    text: (name) => `For ${name}: ${'数据 😀 '.repeat(400)}`,
  });
}

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-frozen-context-'));
let fresh: FreshPostgres | null = null;
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  await fresh?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const STORES: readonly [string, () => Promise<KyselyTeamStore>][] = [
  ['SQLite', async () => KyselyTeamStore.open(join(dir, `context-${ids.teamId()}.sqlite`))],
  [
    'PostgreSQL',
    async () => {
      fresh ??= await createFreshPostgres('agent_teams_frozen_context');
      return KyselyTeamStore.open(fresh.url);
    },
  ],
];

describe.each(STORES)('the team context a pass freezes on %s', (_name, open) => {
  it('is read and built once per team, sees a record an earlier freeze appended, and stays frozen', async () => {
    const store = await open();
    closers.push(() => store.close());
    const [first, second, third] = await threeQueued(store);
    if (first === undefined || second === undefined || third === undefined) throw new Error('three jobs');
    const contexts: FreezeContext[] = [];
    const admitted = await store.admit({
      now,
      plan: (snapshot) => ({ admit: snapshot.candidates.map((c) => c.jobId), round: EMPTY_ROUND }),
      freeze: (ctx) => {
        contexts.push(ctx);
        const tctx = { now, ids };
        // The first is cancelled by its freeze, which appends its CANCELLED record.
        if (ctx.job.id === first.id) return transition(ctx.job, { type: 'CANCEL' }, tctx);
        return freezeJob(ctx, agents, runtimes, tctx);
      },
    });
    expect(admitted.map((a) => [a.job.id, a.job.phase])).toEqual([
      [first.id, JobPhase.CANCELLED],
      [second.id, JobPhase.ADMITTING],
      [third.id, JobPhase.ADMITTING],
    ]);
    // One read for the two jobs after the append, which it shows last.
    expect(contexts[2]?.recentRecords).toBe(contexts[1]?.recentRecords);
    expect(contexts[1]?.recentRecords).not.toBe(contexts[0]?.recentRecords);
    expect(contexts[1]?.recentRecords.at(-1)).toMatchObject({ kind: RecordKind.CANCELLED, jobId: first.id });
    expect(await store.recentRecords(second.teamId, Limits.contextMessages)).toEqual(contexts[1]?.recentRecords);
    const [, frozenSecond, frozenThird] = admitted.map((a) => a.job);
    const context = frozenSecond?.input?.context as TeamContextJson;
    expect(frozenThird?.input?.context).toBe(context);
    expect(context.messages.at(-1)).toMatchObject({ kind: RecordKind.CANCELLED, job_id: first.id });
    expect(Object.isFrozen(context.messages)).toBe(true);
    expect(Object.isFrozen(frozenSecond?.input)).toBe(true);
    // Read back: the same object while the stored text is the text written, its parse otherwise.
    const read = await store.findJob(owner, second.id);
    expect(read?.input).toBe(frozenSecond?.input);
    expect(JSON.parse(JSON.stringify(read?.input))).toStrictEqual(read?.input);
    const changed = { ...frozenSecond?.input, text: 'Frozen again elsewhere 数据 😀 \ud800' };
    await sql`update jobs set input_json = ${JSON.stringify(changed)} where id = ${second.id}`.execute(store.db);
    const reread = await store.findJob(owner, second.id);
    expect(reread?.input).not.toBe(frozenSecond?.input);
    expect(reread?.input).toEqual(changed);
  });
});
