import { ErrorCode, isDomainError, type JobId, jsonBytes, Limits, TASK_TOOL_NAMES } from '@agent-teams/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, sendRequest, type TeamFixture } from '../graphql/fixtures.js';
import { createGraphqlStack, type GraphqlStack } from '../graphql/graphql-stack.js';

let stack: GraphqlStack;
let team: TeamFixture;
let jobs: JobId[];
beforeAll(async () => {
  // No scheduler: the requests stay QUEUED, so each member has an unfinished job to call tools through.
  stack = await createGraphqlStack({ scheduler: false });
  team = await createTeam(stack);
  jobs = (await Promise.all(team.members.map((m) => sendRequest(stack, team.id, [m.id], 'fuzz')))).flat() as JobId[];
});
afterAll(async () => stack.close());

const CODES = new Set<string>(Object.values(ErrorCode));
const KEYS = [
  'title',
  'details',
  'depends_on',
  'write_scope',
  'assignee',
  'status',
  'owner',
  'limit',
  'cursor',
  'task_id',
  'expected_revision',
  'result',
  'team_id',
  'extra',
];

/** Task ids seen so far, so arguments often name real tasks. */
const known: string[] = [];

const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('\uD800', 'a\u0000b', '😀'.repeat(201), 'x'.repeat(4_001), 'open', 'Ada', 'src/api', ''),
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  text,
  fc.integer({ min: -3, max: 300 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(text, { maxLength: 25 }),
  fc.nat().map((n) => known[n % Math.max(1, known.length)] ?? 'task_none'),
  fc.nat(40).map((n) => Array.from({ length: n }, (_, i) => known[i % Math.max(1, known.length)] ?? 'task_x')),
  fc.jsonValue({ maxDepth: 2 }),
);
/** Well-formed arguments of every tool, so runs reach the board and not only the argument checks. */
const wellFormed = fc.record({
  title: fc.constantFrom('Parser', '数据', '😀 emoji'),
  task_id: fc.nat().map((n) => known[n % Math.max(1, known.length)] ?? 'task_none'),
  expected_revision: fc.integer({ min: 1, max: 4 }),
});
const call = fc.record({
  tool: fc.constantFrom(...TASK_TOOL_NAMES),
  caller: fc.nat(1),
  base: fc.option(wellFormed, { freq: 3 }),
  args: fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 4 }),
});

/** The well-formed arguments a tool takes, overridden by the random ones. */
function argsOf(tool: string, base: Record<string, unknown> | null, args: Record<string, unknown>) {
  if (base === null) return args;
  const own =
    tool === 'task_create'
      ? { title: base.title }
      : tool === 'task_list'
        ? {}
        : { task_id: base.task_id, expected_revision: base.expected_revision };
  return { ...own, ...args };
}

describe('task tools under hostile JSON arguments', () => {
  it('answer within the budget or refuse with a contract code, never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(call, async ({ tool, caller, base, args }) => {
        try {
          const answer = (await stack.core.tools.invoke(jobs[caller] as JobId, tool, argsOf(tool, base, args))) as {
            task?: { id: string };
          };
          expect(jsonBytes(answer)).toBeLessThanOrEqual(Limits.toolResponseBytes);
          if (answer.task && !known.includes(answer.task.id)) known.push(answer.task.id);
        } catch (error) {
          if (!isDomainError(error) || !CODES.has(error.code)) throw error;
        }
      }),
      { numRuns: 400 },
    );
    // The run reached the board, not only the argument checks: tasks were created (4–12 of 400
    // random calls in practice, so a bar above 1 made the test fail about one run in four).
    expect(known.length).toBeGreaterThan(0);
    const list = (await stack.core.tools.invoke(jobs[0] as JobId, 'task_list', { limit: 20 })) as {
      tasks: { status: string; owner: string | null; revision: number }[];
    };
    for (const task of list.tasks) {
      expect(task.revision).toBeGreaterThanOrEqual(1);
      if (task.status === 'claimed') expect(task.owner).not.toBeNull();
      if (task.status === 'open') expect(task.owner).toBeNull();
    }
  });
});
