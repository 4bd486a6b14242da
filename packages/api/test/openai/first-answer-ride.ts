import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { expect } from 'vitest';
import { openRunRides } from '../../src/storage/open-run-rides.js';
import { runWrite } from '../../src/storage/write-transaction.js';
import { context, openAiAgent, type RuntimeFixture, requestInput, runtimeOver, settle } from './runtime-fixture.js';

const NOW = '2026-12-03T12:00:00.000Z';

/** Records each insert and update by its table, in order. */
class WriteLog implements KyselyPlugin {
  readonly tables: string[] = [];
  transformQuery(args: { node: RootOperationNode }): RootOperationNode {
    const { node } = args;
    if (node.kind === 'InsertQueryNode') this.tables.push(`insert ${node.into?.table.identifier.name}`);
    if (node.kind === 'UpdateQueryNode') {
      this.tables.push(`update ${JSON.stringify(node.table).match(/"name":"(\w+)"/)?.[1]}`);
    }
    return node;
  }
  async transformResult<R>(args: { result: R }): Promise<R> {
    return args.result;
  }
}

/**
 * A first answer carried with its run's begin (decisions 0220, 0221): the job write inserts the
 * run row already ended and the input and the answer in one insert per table, the input rows
 * stamped with the run's begin and the answer's with the write's time, input first.
 */
export async function checkFirstAnswerRide(current: RuntimeFixture): Promise<void> {
  const { provider, database } = current;
  provider.enqueue({ kind: 'answer', content: 'done' });
  const writes = new WriteLog();
  const db = database.db.withPlugin(writes);
  const rides = openRunRides({ db, dialect: database.dialect }, { nowMs: () => Date.now() }, 60_000);
  const runtime = runtimeOver(current, { rides });
  const ctx = context('job_ride', openAiAgent());
  try {
    const { runId } = await runtime.start({ runKey: 'job_ride', input: requestInput('job_ride', 'Go'), context: ctx });
    expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'done' });
    const withRides = { db, dialect: database.dialect, sink: null, ids: null, rides };
    expect(await runWrite(withRides, NOW, (scope) => scope.carryRide(runId))).toBe(true);
    expect(writes.tables).toEqual([
      'insert runtime_runs',
      'insert openai_messages',
      'insert conversation_messages',
      'insert model_usage',
    ]);
    const run = await database.db
      .selectFrom('runtime_runs')
      .select(['state', 'state_json', 'created_at', 'updated_at'])
      .where('run_id', '=', runId)
      .executeTakeFirstOrThrow();
    expect(run.state).toBe('completed');
    expect(JSON.parse(run.state_json ?? 'null').outcome).toEqual({ state: 'completed', answer: 'done' });
    // Begun before the job write carried it: the row and the input keep their own time.
    expect(run.created_at).not.toBe(NOW);
    expect(run.updated_at).toBe(NOW);
    const steps = await database.db
      .selectFrom('openai_messages')
      .select(['step', 'role', 'created_at'])
      .where('run_id', '=', runId)
      .orderBy('seq')
      .execute();
    expect(steps).toEqual([
      { step: 0, role: 'user', created_at: run.created_at },
      { step: 1, role: 'assistant', created_at: NOW },
    ]);
    const shown = await database.db
      .selectFrom('conversation_messages')
      .select(['role', 'text', 'created_at'])
      .where('job_id', '=', 'job_ride')
      .orderBy('seq')
      .execute();
    expect(shown).toEqual([
      { role: 'USER', text: 'Go', created_at: run.created_at },
      { role: 'ASSISTANT', text: 'done', created_at: NOW },
    ]);
    const usage = await database.db
      .selectFrom('model_usage')
      .select('job_id')
      .where('job_id', '=', 'job_ride')
      .execute();
    expect(usage).toHaveLength(1);
  } finally {
    await runtime.dispose();
  }
}
