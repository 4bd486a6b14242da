import { Limits, type TextLimit } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { createTeam, type TeamFixture } from '../graphql/fixtures.js';
import { codes, type GraphqlStack } from '../graphql/graphql-stack.js';
import { boardPerFile, CANCEL_TASK, CREATE_TASK, createTask } from './task-graphql.js';

let stack: GraphqlStack;
let team: TeamFixture;
boardPerFile((board) => {
  ({ stack, team } = board);
});

/** The most of one character that fits both limits, in ASCII, CJK (3 bytes) and emoji (4 bytes). */
const scripts = (limit: TextLimit) =>
  [
    ['ASCII', 'a', 1],
    ['CJK', '数', 3],
    ['emoji', '😀', 4],
  ].map(([name, unit, bytes]) => ({
    name: String(name),
    unit: String(unit),
    most: Math.min(limit.maxChars, Math.floor(limit.maxBytes / Number(bytes))),
  }));

let key = 0;
const create = (input: Record<string, unknown>) =>
  stack.gql(CREATE_TASK, { input: { teamId: team.id, title: 'T', clientRequestId: `lim-${++key}`, ...input } });

describe('task limits at the GraphQL edge', () => {
  const texts: [string, TextLimit][] = [
    ['title', Limits.taskTitle],
    ['details', Limits.taskDetails],
  ];
  for (const [field, limit] of texts) {
    for (const { name, unit, most } of scripts(limit)) {
      it(`${field}: ${most - 1} and ${most} ${name} characters pass, ${most + 1} is INVALID_INPUT`, async () => {
        for (const n of [most - 1, most]) expect(codes(await create({ [field]: unit.repeat(n) }))).toEqual([]);
        const over = await create({ [field]: unit.repeat(most + 1) });
        expect(over.errors[0]?.extensions).toMatchObject({ code: 'INVALID_INPUT', field });
      });
    }
  }

  it(`write scopes: ${Limits.writeScopesPerTask} of ${Limits.writeScope.maxChars} characters pass, one more of either is refused`, async () => {
    const scopes = (n: number, chars: number) =>
      Array.from({ length: n }, (_, i) => `${i}${'😀'.repeat(chars - String(i).length)}`);
    const at = Limits.writeScopesPerTask;
    const max = Limits.writeScope.maxChars;
    expect(codes(await create({ writeScope: scopes(at, max) }))).toEqual([]);
    expect(codes(await create({ writeScope: scopes(at + 1, 5) }))).toEqual(['INVALID_INPUT']);
    expect(codes(await create({ writeScope: scopes(1, max + 1) }))).toEqual(['INVALID_INPUT']);
  });

  it(`dependencies: ${Limits.dependenciesPerTask} pass, one more is refused`, async () => {
    const deps: string[] = [];
    for (let i = 0; i <= Limits.dependenciesPerTask; i += 1) deps.push((await createTask(stack, team.id)).id);
    expect(codes(await create({ dependsOn: deps.slice(0, -1) }))).toEqual([]);
    expect(codes(await create({ dependsOn: deps }))).toEqual(['INVALID_INPUT']);
  });

  it(`holds ${Limits.tasksPerTeam} tasks per team (TASK_LIMIT after), cancelled ones counted`, async () => {
    const full = await createTeam(stack);
    const made = await Promise.all(
      Array.from({ length: Limits.tasksPerTeam - 1 }, (_, i) => createTask(stack, full.id, { title: `t${i}` })),
    );
    await stack.gql(CANCEL_TASK, { input: { taskId: made[0]?.id, expectedRevision: 1 } });
    const last = await stack.gql(CREATE_TASK, { input: { teamId: full.id, title: 'last', clientRequestId: 'last' } });
    expect(codes(last)).toEqual([]);
    const over = await stack.gql(CREATE_TASK, { input: { teamId: full.id, title: 'over', clientRequestId: 'over' } });
    expect(over.errors[0]?.extensions).toMatchObject({ code: 'TASK_LIMIT', limit: Limits.tasksPerTeam });
  });
});
