import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTeam, gql, gqlData, sendOk } from './cluster-client.js';
import { ClusterHarness, TOKENS } from './cluster-harness.js';
import type { ServerProcess } from './server-process.js';

let harness: ClusterHarness;
let s1: ServerProcess;
let s2: ServerProcess;
let pool: pg.Pool;

beforeAll(async () => {
  harness = await ClusterHarness.create('cluster_tasks');
  [s1, s2] = (await harness.startMany(2)) as [ServerProcess, ServerProcess];
  pool = new pg.Pool({ connectionString: harness.database.url, max: 2 });
  pool.on('error', () => undefined);
}, 90_000);
afterAll(async () => {
  await pool?.end();
  await harness?.dispose();
});
beforeEach(({ onTestFailed }) => harness.printOnFailure(onTestFailed));

const CREATE_TASK = `mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id revision } } }`;
const ASSIGN = `mutation($input: AssignTaskInput!) { assignTask(input: $input) { task { id revision owner { id } } } }`;

/** The task row and its TASK_CHANGED events, read beside the servers. */
async function stored(taskId: string) {
  const task = await pool.query<{ owner_id: string | null; revision: number; status: string }>(
    'SELECT owner_id, revision, status FROM tasks WHERE id = $1',
    [taskId],
  );
  const events = await pool.query<{ n: string }>('SELECT count(*) AS n FROM team_events WHERE task_id = $1', [taskId]);
  return { ...task.rows[0], events: Number(events.rows[0]?.n) };
}

describe('racing claims of one task across two servers on one PostgreSQL database', () => {
  it('lets exactly one of 50 concurrent assignments of revision 1 win', { timeout: 60_000 }, async () => {
    const team = await createTeam(s1, TOKENS.alice, 'race-assign');
    const created = await gqlData(s1, TOKENS.alice, CREATE_TASK, {
      input: { teamId: team.id, title: 'Contended', clientRequestId: 'race-1' },
    });
    const taskId = created.createTask.task.id as string;
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        gql(i % 2 === 0 ? s1 : s2, TOKENS.alice, ASSIGN, {
          input: { taskId, expectedRevision: 1, memberId: team.members[i % team.members.length]?.id },
        }),
      ),
    );
    const won = outcomes.filter((o) => !o.errors?.length);
    expect(won).toHaveLength(1);
    const codes = outcomes.flatMap((o) => o.errors?.map((e) => e.extensions?.code) ?? []);
    expect(codes).toEqual(Array(49).fill('TASK_STALE_REVISION'));
    const winner = won[0]?.data?.assignTask.task.owner.id;
    expect(await stored(taskId)).toEqual({ owner_id: winner, revision: 2, status: 'CLAIMED', events: 2 });
  });

  it('lets exactly one of 48 member claims (task_claim through both servers) win', { timeout: 90_000 }, async () => {
    const team = await createTeam(s2, TOKENS.alice, 'race-claim');
    const created = await gqlData(s2, TOKENS.alice, CREATE_TASK, {
      input: { teamId: team.id, title: 'Claimed by one', clientRequestId: 'race-2' },
    });
    const taskId = created.createTask.task.id as string;
    const claim = `!tool task_claim {"task_id":"${taskId}","expected_revision":1}`;
    const jobIds = await Promise.all(
      Array.from({ length: 48 }, (_, i) =>
        sendOk(i % 2 === 0 ? s1 : s2, TOKENS.alice, {
          teamId: team.id,
          memberId: String(team.members[i % team.members.length]?.id),
          text: claim,
          clientRequestId: `claim-${i}`,
        }),
      ),
    );
    const jobs = await vi.waitFor(
      async () => {
        const rows = await harness.observer.jobs([team.id]);
        const done = rows.filter((job) => jobIds.includes(job.id) && job.phase === 'COMPLETED');
        expect(done).toHaveLength(48);
        return done;
      },
      { timeout: 60_000, interval: 200 },
    );
    const answers = jobs.map((job) => JSON.parse(String(job.result_text)) as Record<string, { code?: string }>);
    const wins = answers.filter((answer) => answer.task !== undefined);
    expect(wins).toHaveLength(1);
    expect(answers.filter((answer) => answer.error?.code === 'TASK_STALE_REVISION')).toHaveLength(47);
    const row = await stored(taskId);
    expect(row).toMatchObject({ revision: 2, status: 'CLAIMED', events: 2 });
    expect(team.members.map((m) => m.id)).toContain(row.owner_id);
  });
});
