// A write's publish window (`UpdateJobOptions.publishing`) is open exactly while the event sink
// hears that write's own events: on SQLite when it shares one transaction with another caller's
// write (decision 0224), on PostgreSQL, and in the memory store; and it closes when a listener
// throws. The scheduler tells its own commits apart by it (`scheduler/own-commits.ts`, decision 0236).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  asOwnerId,
  type EventSink,
  type Job,
  type JobId,
  type TeamEvent,
  type TeamStore,
  transition,
} from '@agent-teams/core';
import { createMemoryTeamStore, SequentialIds } from '@agent-teams/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { OwnCommits } from '../../src/scheduler/own-commits.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { queueOneEach } from '../support/queued-requests.js';

const ids = new SequentialIds();
const owner = asOwnerId('alice');
const now = '2026-01-01T00:00:00.000Z';

/** What the sink heard: each publication's job ids and which own write was open meanwhile. */
interface Heard {
  readonly jobIds: readonly (JobId | null)[];
  readonly own: string | undefined;
}

/** A sink that records {@link Heard} per publication, and throws when `throwFor` is named. */
function listener(own: OwnCommits<string>, heard: Heard[], throwFor: { jobId: JobId | null }): EventSink {
  return {
    published(events: readonly TeamEvent[]) {
      heard.push({ jobIds: events.map((event) => event.jobId), own: own.current() });
      if (events.some((event) => event.jobId !== null && event.jobId === throwFor.jobId)) {
        throw new Error('listener failed');
      }
    },
  };
}

/** A READY team of two members with one queued request to each. */
async function twoQueued(store: TeamStore): Promise<[Job, Job]> {
  const jobs = await queueOneEach(store, ids, {
    owner,
    now,
    names: ['A', 'B'],
    agentId: 'researcher',
    text: (name) => `For ${name}`,
  });
  return [jobs[0] as Job, jobs[1] as Job];
}

const cancel = (job: Job) => transition(job, { type: 'CANCEL' }, { now, ids });

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-publish-window-'));
let fresh: FreshPostgres | null = null;
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  await fresh?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Each store with the sink given: a SQLite file, a fresh PostgreSQL database, the memory store. */
const STORES: readonly [string, (events: EventSink) => Promise<TeamStore>][] = [
  [
    'SQLite',
    async (events) => {
      const store = await KyselyTeamStore.open(join(dir, `window-${ids.teamId()}.sqlite`), { events });
      closers.push(() => store.close());
      return store;
    },
  ],
  [
    'PostgreSQL',
    async (events) => {
      fresh ??= await createFreshPostgres('agent_teams_publish_window');
      const store = await KyselyTeamStore.open(fresh.url, { events });
      closers.push(() => store.close());
      return store;
    },
  ],
  ['the memory store', async (events) => createMemoryTeamStore({ ids, events })],
];

describe.each(STORES)("a write's publish window on %s", (_name, open) => {
  it("is open while its own events are heard, and not for another caller's write committed with it", async () => {
    const own = new OwnCommits<string>();
    const heard: Heard[] = [];
    const store = await open(listener(own, heard, { jobId: null }));
    const [mine, theirs] = await twoQueued(store);
    heard.length = 0;
    // Asked in the same turn: on SQLite both writes share one transaction and its COMMIT.
    await Promise.all([
      store.updateJob(mine.id, cancel, { now, publishing: own.window('step') }),
      store.updateJob(theirs.id, cancel, { now }),
    ]);
    expect(heard).toHaveLength(2);
    for (const publication of heard) {
      expect(publication.jobIds.length).toBeGreaterThan(0);
      const about = publication.jobIds.find((jobId) => jobId !== null);
      expect(publication.own).toBe(about === mine.id ? 'step' : undefined);
    }
    expect(heard.map((publication) => publication.own).sort()).toEqual(['step', undefined]);
    expect(own.current()).toBeUndefined();
  });

  it('closes when a listener throws', async () => {
    const own = new OwnCommits<string>();
    const heard: Heard[] = [];
    const throwFor: { jobId: JobId | null } = { jobId: null };
    const store = await open(listener(own, heard, throwFor));
    const [mine] = await twoQueued(store);
    throwFor.jobId = mine.id;
    await store.updateJob(mine.id, cancel, { now, publishing: own.window('step') }).catch(() => undefined);
    expect(heard.at(-1)?.own).toBe('step');
    expect(own.current()).toBeUndefined();
  });
});
