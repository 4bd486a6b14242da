import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import { createTeam, sendRequest } from '../graphql/fixtures.js';
import { createGraphqlStack, type GraphqlStack } from '../graphql/graphql-stack.js';
import { createFreshPostgres } from '../support/fresh-postgres.js';

const dirs: string[] = [];
const stacks: GraphqlStack[] = [];
afterAll(async () => {
  for (const stack of stacks) await stack.close().catch(() => undefined);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function open(database: string, scheduler = true): Promise<GraphqlStack> {
  const stack = await createGraphqlStack({ database, ids: createRandomIds(), scheduler });
  stacks.push(stack);
  return stack;
}

/** The answer lines of a finished job. */
const linesOf = (job: Record<string, unknown>) => String((job.result as { text: string }).text).split('\n');

describe('a durable wait', () => {
  it('survives a restart on the same SQLite file and resumes on the next change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-teams-wait-'));
    dirs.push(dir);
    const file = join(dir, 'teams.sqlite');
    const first = await open(file);
    const team = await createTeam(first);
    const [ada, bob] = [String(team.members[0]?.id), String(team.members[1]?.id)];
    const [waiter = ''] = await sendRequest(first, team.id, [ada], '!wait 600000\n!reply after the restart');
    await first.waitForJob(waiter, ['WAITING_CHANGE']);
    await first.close();

    const second = await open(file);
    expect((await second.waitForJob(waiter, ['WAITING_CHANGE'])).status).toBe('WAITING_CHANGE');
    const [other = ''] = await sendRequest(second, team.id, [bob], 'a change');
    const done = await second.waitForJob(waiter, ['COMPLETED']);
    const [line, after] = linesOf(done);
    expect(after).toBe('after the restart');
    const result = JSON.parse(String(line)) as { timed_out: boolean; changes: { job_id?: string }[] };
    expect(result.timed_out).toBe(false);
    expect(result.changes.some((c) => c.job_id === other)).toBe(true);
  });

  it('wakes a waiter of server A through the change feed when the change is sent through server B', async () => {
    const database = await createFreshPostgres('waits');
    try {
      const a = await open(database.url);
      // B runs no scheduler: only A can admit the woken wait, told of B's commit by the change feed.
      const b = await open(database.url, false);
      const team = await createTeam(a);
      const [ada, bob] = [String(team.members[0]?.id), String(team.members[1]?.id)];
      const [waiter = ''] = await sendRequest(a, team.id, [ada], '!wait 600000\n!reply woken');
      await a.waitForJob(waiter, ['WAITING_CHANGE']);
      const [other = ''] = await sendRequest(b, team.id, [bob], 'a change from B');
      const done = await a.waitForJob(waiter, ['COMPLETED']);
      const [line, after] = linesOf(done);
      expect(after).toBe('woken');
      expect(
        (JSON.parse(String(line)) as { changes: { job_id?: string }[] }).changes.some((c) => c.job_id === other),
      ).toBe(true);
      await a.close();
      await b.close();
    } finally {
      await database.drop();
    }
  });
});
