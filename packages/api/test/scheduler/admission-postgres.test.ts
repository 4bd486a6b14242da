import { ACTIVE_PHASES, type AdmissionPolicy, asOwnerId, JobPhase } from '@agent-teams/core';
import { StaticCatalog } from '@agent-teams/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import type { App } from '../../src/app/create-app.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { openTestApp } from '../support/test-app.js';
import { sendAsOwner } from './owner-requests.js';
import { TEST_AGENTS, waitFor } from './scheduler-harness.js';

// Two servers (applications, each with its own pool, scheduler and lease) in one process on one
// real PostgreSQL database: the admission rules hold across them because planning is serialized
// by the scheduler row lock.

const ALICE = asOwnerId('alice');
const BOB = asOwnerId('bob');
const POLICY: AdmissionPolicy = {
  activeJobs: 6,
  reservedForOthers: 2,
  defaultOwner: { maxActive: null, weight: 1 },
  owners: new Map([
    ['alice', { maxActive: 5, weight: 2 }],
    ['bob', { maxActive: 1, weight: 1 }],
  ]),
};

let pg: FreshPostgres;
const apps: App[] = [];

beforeAll(async () => {
  pg = await createFreshPostgres('agent_teams_admission');
  for (const id of ['srv_a', 'srv_b']) {
    apps.push(
      await openTestApp({
        database: await openDatabase(pg.url, { poolSize: 4 }),
        ids: createRandomIds(),
        catalog: new StaticCatalog(TEST_AGENTS),
        lease: { serverId: id },
        scheduler: { admission: POLICY },
      }),
    );
  }
}, 60_000);
afterAll(async () => {
  for (const app of apps.splice(0)) await app.close();
  await pg?.drop();
});

describe('admission rules across two servers on PostgreSQL', () => {
  it('keeps the database cap, the slots kept for others and an owner cap, whichever server admits', {
    timeout: 60_000,
  }, async () => {
    const [a, b] = apps as [App, App];
    const alice = [
      ...(await sendAsOwner(a.core, ALICE, 4, '!sleep 600000', 'alice-a')),
      ...(await sendAsOwner(b.core, ALICE, 4, '!sleep 600000', 'alice-b')),
    ];
    const counts = async () => {
      const active = (await a.store.listActiveJobs()).filter((j) => ACTIVE_PHASES.includes(j.phase));
      return {
        alice: active.filter((j) => j.owner === ALICE).length,
        bob: active.filter((j) => j.owner === BOB).length,
      };
    };
    // Alice alone: at most activeJobs − reservedForOthers = 4 of her 8 (her own cap, 5, is higher).
    await waitFor(async () => (await counts()).alice === 4, 'four of alice’s turns running');
    for (const app of apps) await app.scheduler?.idle();
    expect((await counts()).alice).toBe(4);
    const bob = [
      ...(await sendAsOwner(b.core, BOB, 3, '!sleep 600000', 'bob-b')),
      ...(await sendAsOwner(a.core, BOB, 2, '!reply quick', 'bob-a')),
    ];
    // Bob gets a kept slot at once, but no more than his own cap (1): the last slot stays free,
    // since Alice is at her share too; both owners' other jobs stay QUEUED.
    await waitFor(async () => (await counts()).bob === 1, 'bob running');
    for (const app of apps) await app.scheduler?.idle();
    expect(await counts()).toEqual({ alice: 4, bob: 1 });
    const jobs = await a.store.findJobs([...alice, ...bob].map((j) => j.id));
    expect(jobs.filter((j) => j.phase === JobPhase.QUEUED)).toHaveLength(4 + 4);
  });
});
