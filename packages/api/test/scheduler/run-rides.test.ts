import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asConversationId, asJobId, asTeamId, type JobId, JobPhase, type RunContext } from '@agent-teams/core';
import { MemoryLogger } from '@agent-teams/testkit';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createSystemClock } from '../../src/adapters/system-clock.js';
import { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { openRunRides } from '../../src/storage/open-run-rides.js';
import { createFreshPostgres } from '../support/fresh-postgres.js';
import {
  closeHarnesses,
  type Harness,
  openHarness,
  removeTempDirs,
  waitForPhases,
  wrapRuntime,
} from './scheduler-harness.js';

function fail(): never {
  throw new Error('no harness');
}

afterAll(async () => {
  await closeHarnesses();
  removeTempDirs();
});

/** The run rows of a job: their state and when they were written. */
async function runsOf(database: OpenedDatabase, jobId: JobId) {
  return database.db.selectFrom('runtime_runs').select(['state', 'updated_at']).where('job_id', '=', jobId).execute();
}

describe("a run's end rides in its job's write (decision 0221)", () => {
  it('an instant turn: the poll reports the end before it is written, and the job write commits it', async () => {
    const unwritten: boolean[] = [];
    let h: Harness | null = null;
    h = await openHarness({
      // A long wait: the ride is certainly carried by the job write, however slow this machine is.
      rideWaitMs: 60_000,
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          poll: async (args) => {
            const state = await runtime.poll(args);
            if (state.state !== 'running' && h !== null) {
              unwritten.push((await runsOf(h.database, args.context.jobId)).length === 0);
            }
            return state;
          },
        }),
    });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [job] = await h.send(team, members.slice(0, 1), 'Summarise the plan');
    if (!job) throw new Error('no job');
    const [done] = await waitForPhases(h, [job.id], [JobPhase.COMPLETED]);
    // The scheduler polled a completed run whose row was not in the database yet...
    expect(unwritten[0]).toBe(true);
    // ...and the job write that completed the job wrote it, with the same timestamp.
    expect(await runsOf(h.database, job.id)).toEqual([{ state: 'completed', updated_at: done?.finishedAt }]);
    const conversation = await h.database.db
      .selectFrom('conversation_messages')
      .select(['role', 'created_at'])
      .where('job_id', '=', job.id)
      .orderBy('seq')
      .execute();
    expect(conversation.map((m) => m.role)).toEqual(['USER', 'ASSISTANT']);
    expect(new Set(conversation.map((m) => m.created_at))).toEqual(new Set([done?.finishedAt]));
  });

  it('on PostgreSQL the run, its conversation and the completed job are one transaction', async () => {
    const pg = await createFreshPostgres('rides_app');
    let h: Harness | null = null;
    try {
      // A long wait: even a step retried after a failure carries the ride (nothing writes it alone).
      h = await openHarness({ file: pg.url, rideWaitMs: 60_000 });
      const { team, members } = await h.team(['researcher', 'reviewer']);
      const [instant] = await h.send(team, members.slice(0, 1), 'Summarise the plan');
      const [slow] = await h.send(team, members.slice(1, 2), '!sleep 30\nThen answer');
      if (!instant || !slow) throw new Error('no jobs');
      await waitForPhases(h, [instant.id, slow.id], [JobPhase.COMPLETED]);
      for (const job of [instant, slow]) {
        // `xmin`: the transaction that wrote a row (last). The run's end and its conversation were
        // written by one transaction that also wrote an event of the job: a job write (the outcome's,
        // or the acknowledgement's when the run ended while it was being written).
        const xmins = async (query: ReturnType<typeof sql<{ xmin: string }>>) =>
          (await query.execute(h?.database.db ?? fail())).rows.map((row) => row.xmin);
        const run = await xmins(sql`select xmin::text as xmin from runtime_runs where job_id = ${job.id}`);
        const said = await xmins(
          sql`select xmin::text as xmin from conversation_messages where job_id = ${job.id} and role = 'ASSISTANT'`,
        );
        const events = await xmins(sql`select xmin::text as xmin from team_events where job_id = ${job.id}`);
        // What the scheduler logged (a failed step retried meanwhile) explains a failure.
        const logged = JSON.stringify(h.logger.entries.filter((entry) => entry.level !== 'info'));
        expect({ run: run.length, said }, logged).toEqual({ run: 1, said: run });
        expect(events, logged).toContain(run[0]);
      }
    } finally {
      await h?.close();
      await pg.drop();
    }
  });
});

describe('a ride lost to a crash', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-teams-rides-crash-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves nothing, and the turn started again with its key runs once', async () => {
    const file = join(dir, 'teams.sqlite');
    const logger = new MemoryLogger();
    const clock = createSystemClock();
    const context = (): RunContext =>
      ({
        teamId: asTeamId('team_1'),
        memberId: 'mem_1' as RunContext['memberId'],
        jobId: asJobId('job_1'),
        conversationId: asConversationId('conv_1'),
        agent: { id: 'a', name: 'a', title: 'a', description: '', runtime: 'scripted', timeoutMs: 0, settings: {} },
        tools: { invoke: async () => ({}) },
      }) as unknown as RunContext;
    const input = { kind: 'request', text: 'Go', memberName: 'm0', receipt: null } as const;

    const before = await openDatabase(file);
    await migrateToLatest(before.db, before.dialect);
    const rides = openRunRides(before, clock, 60_000);
    const crashed = new ScriptedRuntime({ db: before.db, dialect: before.dialect, clock, logger, rides });
    const { runId } = await crashed.start({ runKey: 'job_1', input: input as never, context: context() });
    expect((await crashed.poll({ runId, context: context() })).state).toBe('completed');
    // The process dies here: the ride was offered, no job write carried it, nothing flushed it.
    expect(await before.db.selectFrom('runtime_runs').select('run_key').execute()).toEqual([]);
    await before.close();

    const after = await openDatabase(file);
    try {
      const restarted = new ScriptedRuntime({ db: after.db, dialect: after.dialect, clock, logger });
      const again = await restarted.start({ runKey: 'job_1', input: input as never, context: context() });
      expect(again.runId).toBe(runId);
      expect(await restarted.poll({ runId, context: context() })).toMatchObject({ state: 'completed' });
      expect(await after.db.selectFrom('runtime_runs').select(['run_key', 'state']).execute()).toEqual([
        { run_key: 'job_1', state: 'completed' },
      ]);
      const roles = await after.db.selectFrom('conversation_messages').select('role').orderBy('seq').execute();
      expect(roles.map((row) => row.role)).toEqual(['USER', 'ASSISTANT']);
    } finally {
      await after.close();
    }
  });
});
