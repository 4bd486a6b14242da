import {
  asAgentId,
  asMemberId,
  asOwnerId,
  asTaskId,
  asTeamId,
  decideTask,
  isDomainError,
  type TaskActor,
  type TaskCommand,
  type TeamStore,
} from '@agent-teams/core';
import { createMemoryTeamStore } from '@agent-teams/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';

const owner = asOwnerId('alice');
const teamId = asTeamId('team_1');
const member = (n: number) => asMemberId(`member_${n}`);
const actor = (n: number): TaskActor => ({ kind: 'member', memberId: member(n), isLead: n === 0 });

/** A step: the command kind, who, which task (index), revision skew and a few values. */
const step = fc.record({
  op: fc.constantFrom('create', 'create', 'claim', 'claim', 'complete', 'release', 'cancel', 'assign', 'update'),
  by: fc.nat(2),
  task: fc.nat(20),
  skew: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -1, max: 1 }) }),
  deps: fc.array(fc.nat(20), { maxLength: 3 }),
  scope: fc.constantFrom('src', 'src/api', 'docs', 'srcx'),
  assignee: fc.option(fc.nat(2)),
});
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

async function open(kind: 'memory' | 'sqlite'): Promise<TeamStore> {
  const store = kind === 'memory' ? createMemoryTeamStore() : await KyselyTeamStore.open(':memory:');
  const members = [0, 1, 2].map((n) => ({
    id: member(n),
    name: `M${n}`,
    agentId: asAgentId('writer'),
    conversationId: `conversation_${n}` as never,
    isLead: n === 0,
  }));
  const base = { owner, clientRequestId: 'k', fingerprint: 'f', name: 'T', goal: 'G', members };
  await store.createTeam({ id: teamId, ...base }, { now: '2026-01-01T00:00:00.000Z', maxTeams: 20 });
  return store;
}

/** The command of a step, against the board as the store holds it now (same on both stores). */
function commandOf(s: Step, tasks: readonly { id: string; revision: number }[], created: number): TaskCommand | null {
  const deps = s.deps.filter((d) => d < tasks.length).map((d) => asTaskId(`task_${d + 1}`));
  if (s.op === 'create') {
    // Mostly unassigned (anyone may create), sometimes assigned (the lead only: NOT_LEAD otherwise).
    const assigneeId = s.assignee === null || s.task % 4 !== 0 ? null : member(s.assignee);
    const base = { clientRequestId: null, title: `T${created}`, details: null, dependsOn: deps };
    return { type: 'create', id: asTaskId(`task_${created + 1}`), ...base, writeScope: [s.scope], assigneeId };
  }
  const task = tasks[s.task % Math.max(1, tasks.length)];
  if (task === undefined) return null;
  const w = { taskId: asTaskId(task.id), expectedRevision: task.revision + s.skew };
  if (s.op === 'complete') return { type: 'complete', ...w, result: 'ok' };
  if (s.op === 'assign') return { type: 'assign', ...w, memberId: s.assignee === null ? null : member(s.assignee) };
  if (s.op === 'update') return { type: 'update', ...w, dependsOn: deps, writeScope: [s.scope] };
  return { type: s.op, ...w };
}

async function apply(store: TeamStore, command: TaskCommand, by: TaskActor, now: string): Promise<string> {
  try {
    const change = await store.changeTask({ teamId, now, decide: (board) => decideTask(board, command, by, now) });
    return `ok ${change.changed} ${change.warnings.length}`;
  } catch (error) {
    if (isDomainError(error)) return error.code;
    throw error;
  }
}

const board = async (store: TeamStore) =>
  (await store.listTasks(teamId, { status: null, ownerId: null }, { first: 100, afterSeq: null })).items;
const taskEvents = async (store: TeamStore) =>
  (await store.readEvents(teamId, 0, 1_000)).filter((e) => e.kind === 'TASK_CHANGED').map((e) => [e.seq, e.taskId]);

describe('task board on SQLite against the in-memory reference store', () => {
  it('agrees on every outcome, every task and every TASK_CHANGED event', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 10, maxLength: 40, size: 'max' }), async (steps) => {
        const [memory, sqlite] = await Promise.all([open('memory'), open('sqlite')]);
        try {
          let created = 0;
          for (const [i, s] of steps.entries()) {
            const command = commandOf(s, await board(memory), created);
            if (command === null) continue;
            const now = new Date(Date.parse('2026-01-01T00:00:00.000Z') + (i + 1) * 1_000).toISOString();
            const outcome = await apply(memory, command, actor(s.by), now);
            expect(await apply(sqlite, command, actor(s.by), now)).toBe(outcome);
            if (command.type === 'create' && outcome.startsWith('ok true')) created += 1;
          }
          expect(await board(sqlite)).toEqual(await board(memory));
          expect(await taskEvents(sqlite)).toEqual(await taskEvents(memory));
        } finally {
          await Promise.all([memory.close(), sqlite.close()]);
        }
      }),
      { numRuns: 40 },
    );
  });
});
