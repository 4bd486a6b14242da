// Stored state that no longer reads (a hand-edited or damaged database) never stops the
// scheduler: each job whose phase needs the lost value fails with STATE_LOST, the admission round
// starts over, and every other team's work runs (`storage/stored-json.ts`).
import { type Job, JobErrorCode, type JobId, JobPhase, type MemberId } from '@agent-teams/core';
import { afterEach, describe, expect, it } from 'vitest';
import { admissionMayChange } from '../../src/storage/admission.js';
import { openDatabase } from '../../src/storage/open-database.js';
import {
  type Harness,
  OWNER,
  openHarness,
  waitFor,
  waitForPhases,
  wrapRuntime,
} from '../scheduler/scheduler-harness.js';
import { databaseTargets } from '../support/database-targets.js';
import { unreadableWarnings } from '../support/unreadable-warnings.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** Warnings of the unreadable-state type, as the process emitted them. */
const warned = unreadableWarnings();

const TARGETS = databaseTargets('agent_teams_unreadable');

const BROKEN = '{"broken": "数据 😀';

describe.each(TARGETS)('stored state that no longer reads (%s)', (_name, target) => {
  it('fails only the jobs that need it, with STATE_LOST, and runs every other team', async () => {
    const file = await target();
    h = await openHarness({ file });
    const { team, members } = await h.team(['researcher', 'reviewer', 'researcher', 'reviewer', 'researcher']);
    const asked = await h.send(team, members, '!ask Which region?');
    await waitForPhases(
      h,
      asked.map((job) => job.id),
      [JobPhase.WAITING_INPUT],
    );
    const [admitting, answered, waiting, question, shaped] = asked.map((job) => job.id);
    if (!admitting || !answered || !waiting || !question || !shaped) throw new Error('five jobs expected');
    // Another team, whose first member has a message waiting for its next turn.
    const other = await h.team(['researcher', 'reviewer']);
    const note = await h.core.messages.send(OWNER, {
      teamId: other.team.id,
      memberIds: other.members.slice(0, 1).map((member) => member.id),
      text: 'Read this first',
      delivery: 'QUIET',
      clientRequestId: 'note-1',
    });
    await h.close();
    h = null;

    // The database edited by hand while the server is down: each job's phase points at a value
    // that no longer reads, and so does the admission round every pass reads.
    const edit = await openDatabase(file);
    try {
      const set = (id: string, values: Record<string, unknown>) =>
        edit.db.updateTable('jobs').set(values).where('id', '=', id).execute();
      await set(admitting, { phase: 'ADMITTING', input_json: BROKEN, run_key: admitting, run_id: null });
      await set(answered, { phase: 'ANSWERED', pending_response_json: BROKEN });
      await set(waiting, { phase: 'WAITING_CHANGE', wait_json: BROKEN, wait_after_seq: 0, wait_deadline: null });
      await set(question, { pending_input_json: BROKEN });
      // JSON, but not a wait (no request id): the wake-up it would make is refused.
      await set(shaped, { phase: 'WAITING_CHANGE', wait_json: '{"afterSeq":0,"deadline":null}', wait_after_seq: 0 });
      await edit.db.updateTable('team_messages').set({ recipients_json: BROKEN }).where('id', '=', note.id).execute();
      await edit.db.updateTable('scheduler_state').set({ round_json: '{"rotation": [' }).where('id', '=', 1).execute();
    } finally {
      await edit.close();
    }

    // The server starts again: recovery claims the ADMITTING job, admission the other two.
    h = await openHarness({ file });
    const [healthy] = await h.send(other.team, other.members.slice(0, 1), 'Summarise the plan');
    if (!healthy) throw new Error('no job');
    const [done] = await waitForPhases(h, [healthy.id], [JobPhase.COMPLETED]);
    expect(done?.result?.text).toBeTruthy();
    // The message whose recipients no longer read was still delivered into that turn.
    expect(await h.core.messages.mailbox(other.members[0]?.id as MemberId)).toEqual([]);
    const listed = (await h.core.messages.list(other.team, { first: 10 })).edges[0]?.node;
    expect({ id: listed?.id, recipientIds: listed?.recipientIds }).toEqual({ id: note.id, recipientIds: [] });

    const failed = await waitForPhases(h, [admitting, answered, waiting, shaped], [JobPhase.FAILED]);
    const lost = (job: Job | undefined) => ({ code: job?.errorCode, error: job?.error });
    expect(failed.map(lost)).toEqual([
      { code: JobErrorCode.STATE_LOST, error: 'The job lost its frozen input; it cannot continue.' },
      { code: JobErrorCode.STATE_LOST, error: 'The job lost its pending answer; it cannot continue.' },
      { code: JobErrorCode.STATE_LOST, error: 'The job lost its wait; it cannot continue.' },
      { code: JobErrorCode.STATE_LOST, error: 'The job lost its wait; it cannot continue.' },
    ]);

    // The question that no longer reads leaves its job waiting for a person, who can cancel it.
    const stuck = await h.job(question);
    expect({ phase: stuck.phase, pendingInput: stuck.pendingInput }).toEqual({
      phase: JobPhase.WAITING_INPUT,
      pendingInput: null,
    });
    await h.core.jobs.cancel(OWNER, question);
    await waitForPhases(h, [question], [JobPhase.CANCELLED]);

    // A round damaged while the server runs: the idle check asks for a pass, the next admission
    // (riding the enqueue or a pass) stores the empty round over it.
    const db = h.database.db;
    await db.updateTable('scheduler_state').set({ round_json: 'not a round' }).where('id', '=', 1).execute();
    expect(await admissionMayChange(db, new Date().toISOString())).toBe(true);
    const [again] = await h.send(other.team, other.members.slice(1, 2), 'Summarise again');
    await waitForPhases(h, [again?.id as JobId], [JobPhase.COMPLETED]);
    const round = await db.selectFrom('scheduler_state').select('round_json').executeTakeFirstOrThrow();
    expect(JSON.parse(round.round_json)).toEqual({ rotation: [], served: [] });
    expect(await admissionMayChange(db, new Date().toISOString())).toBe(false);

    // Each value is reported as a process warning naming its row (the round's report is per
    // process, so it is tested in `stored-json.test.ts`).
    const reports = await waitFor(() => (warned().length >= 5 ? warned() : null), 'the warnings');
    for (const [column, id] of [
      ['jobs.input_json', admitting],
      ['jobs.pending_response_json', answered],
      ['jobs.wait_json', waiting],
      ['jobs.pending_input_json', question],
      ['team_messages.recipients_json', note.id],
    ] as const) {
      expect(reports.some((message) => message.startsWith(`${column} of ${id} does not read as JSON`))).toBe(true);
    }
  });

  it('cancels the run of a cancelling job whose answer is not an answer, instead of forgetting it', async () => {
    const file = await target();
    h = await openHarness({ file });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [job] = await h.send(team, members.slice(0, 1), '!sleep 600000');
    if (!job) throw new Error('no job');
    const [running] = await waitForPhases(h, [job.id], [JobPhase.RUNNING]);
    const runId = running?.runId;
    if (!runId) throw new Error('no run');
    await h.close();
    h = null;
    // Being cancelled, with an answer that parses but has no run key (nothing to submit).
    const edit = await openDatabase(file);
    try {
      await edit.db
        .updateTable('jobs')
        .set({ phase: 'CANCELLING', pending_response_json: '{"value":"EU"}' })
        .where('id', '=', job.id)
        .execute();
    } finally {
      await edit.close();
    }
    const cancelled: string[] = [];
    h = await openHarness({
      file,
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          cancel: (args) => {
            cancelled.push(args.runId);
            return runtime.cancel(args);
          },
        }),
    });
    const [done] = await waitForPhases(h, [job.id], [JobPhase.CANCELLED]);
    expect(done?.phase).toBe(JobPhase.CANCELLED);
    // The run still going at the runtime was stopped, not left to run for ten minutes.
    expect(cancelled).toContain(runId);
  });
});
