import { describe, expect, it } from 'vitest';
import {
  ask,
  type CollabStack,
  createPair,
  type GqlAnswer,
  NO_DATA,
  OWNER_TOKENS,
  type PairTeam,
  pairPerFile,
  tokenFor,
} from '../collaboration/collab-stack.js';
import { RETIRE } from '../lifecycle/lifecycle-ops.js';

// The mailbox and task-board decisions are shared with the member tools and name their arguments;
// each mutation's errors must name its own input fields instead, and the tools keep theirs.

let stack: CollabStack;
let team: PairTeam;
let url: string;
pairPerFile((fixture) => {
  ({ stack, team, url } = fixture);
});

/** One GraphQL POST over loopback HTTP, as a browser client sends it. */
async function post(query: string, variables: Record<string, unknown>, token: string): Promise<GqlAnswer> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as Partial<GqlAnswer>;
  return { data: body.data ?? null, errors: body.errors ?? [] };
}

const SEND = 'mutation($input: SendMessageInput!) { sendMessage(input: $input) { message { id } } }';
const CREATE_TASK = 'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id revision } } }';

let counter = 0;
const send = (teamId: string, memberIds: string[], text: string, clientRequestId = `key-${++counter}`) =>
  post(SEND, { input: { teamId, memberIds, text, delivery: 'QUIET', clientRequestId } }, OWNER_TOKENS.alice);

/** The first error's code, field and message (fails when the mutation succeeded). */
function refusal(answer: GqlAnswer): { code: unknown; field: unknown; message: string } {
  const [error] = answer.errors;
  if (error === undefined) throw new Error(`expected an error, got ${JSON.stringify(answer.data)}`);
  return { code: error.extensions?.code, field: error.extensions?.field, message: error.message };
}

/** A team of Ada, Bob and Cy whose Cy was retired through `retireMember`. */
async function teamWithRetiredCy(): Promise<PairTeam & { readonly cy: string }> {
  const trio = await createPair(stack, OWNER_TOKENS.alice, ['Ada', 'Bob', 'Cy']);
  const cy = (trio.members[2] as { id: string }).id;
  const retired = await post(RETIRE, { id: cy }, OWNER_TOKENS.alice);
  expect(retired.errors).toEqual([]);
  return { ...trio, cy };
}

describe('sendMessage errors name its input fields', () => {
  it('names clientRequestId (field and message) when a key is reused with other content', async () => {
    const bob = team.members[1].id;
    expect((await send(team.id, [bob], 'first', 'reused-key')).errors).toEqual([]);
    expect(refusal(await send(team.id, [bob], 'other text', 'reused-key'))).toEqual({
      code: 'IDEMPOTENCY_CONFLICT',
      field: 'clientRequestId',
      message: 'This clientRequestId was already used for another message.',
    });
    // An alias renames the answer's key only: the mutation is still sendMessage.
    const aliased = await post(
      'mutation($input: SendMessageInput!) { again: sendMessage(input: $input) { message { id } } }',
      { input: { teamId: team.id, memberIds: [bob], text: 'third', delivery: 'QUIET', clientRequestId: 'reused-key' } },
      OWNER_TOKENS.alice,
    );
    expect(refusal(aliased)).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', field: 'clientRequestId' });
  });

  it('names memberIds for a full mailbox and for a retired recipient', async () => {
    const full = await createPair(stack);
    const ada = full.members[0].id;
    // Quiet messages wait for Ada's next turn, and she gets none: the mailbox fills.
    for (let i = 0; i < 64; i += 1) expect((await send(full.id, [ada], `note ${i}`)).errors).toEqual([]);
    expect(refusal(await send(full.id, [ada], 'one too many'))).toEqual({
      code: 'MAILBOX_FULL',
      field: 'memberIds',
      message: 'Ada already holds 64 undelivered messages.',
    });

    const trio = await teamWithRetiredCy();
    expect(refusal(await send(trio.id, [trio.members[0].id, trio.cy], 'hello'))).toEqual({
      code: 'MEMBER_RETIRED',
      field: 'memberIds',
      message: 'Cy was retired and can no longer be messaged.',
    });
  });
});

describe('task mutation errors name their input fields', () => {
  it('names assigneeId in createTask for a retired or an unknown assignee', async () => {
    const trio = await teamWithRetiredCy();
    const create = (assigneeId: string, key: string) =>
      post(
        CREATE_TASK,
        { input: { teamId: trio.id, title: 'Draft', assigneeId, clientRequestId: key } },
        OWNER_TOKENS.alice,
      );
    expect(refusal(await create(trio.cy, 'task-retired'))).toEqual({
      code: 'MEMBER_RETIRED',
      field: 'assigneeId',
      message: 'Cy was retired and cannot own tasks.',
    });
    expect(refusal(await create('member_nope', 'task-unknown'))).toMatchObject({
      code: 'NOT_FOUND',
      field: 'assigneeId',
    });
  });

  it('names memberId in assignTask for a retired member, and taskId for a write to a cancelled task', async () => {
    const trio = await teamWithRetiredCy();
    const created = await post(
      CREATE_TASK,
      { input: { teamId: trio.id, title: 'Review', clientRequestId: 'task-open' } },
      OWNER_TOKENS.alice,
    );
    const task = ((created.data ?? NO_DATA).createTask as { task: { id: string; revision: number } }).task;
    const assign = await post(
      'mutation($input: AssignTaskInput!) { assignTask(input: $input) { task { id } } }',
      { input: { taskId: task.id, expectedRevision: task.revision, memberId: trio.cy } },
      OWNER_TOKENS.alice,
    );
    expect(refusal(assign)).toMatchObject({ code: 'MEMBER_RETIRED', field: 'memberId' });

    // A cancelled task takes no more writes: INVALID_TRANSITION names the task and its status.
    const cancel = (expectedRevision: number) =>
      post(
        'mutation($input: CancelTaskInput!) { cancelTask(input: $input) { task { revision } } }',
        { input: { taskId: task.id, expectedRevision } },
        OWNER_TOKENS.alice,
      );
    const cancelled = await cancel(task.revision);
    expect(cancelled.errors).toEqual([]);
    const revision = ((cancelled.data ?? NO_DATA).cancelTask as { task: { revision: number } }).task.revision;
    const again = await cancel(revision);
    expect(again.errors[0]?.extensions).toMatchObject({
      code: 'INVALID_TRANSITION',
      field: 'taskId',
      status: 'CANCELLED',
    });
  });
});

describe('the member tools keep their own argument names', () => {
  it('names message_id for a reused key of team_message, also through invokeTeamTool', async () => {
    const [ada] = team.members;
    const holder = await ask(stack, team.id, ada.id, '!sleep 600000');
    await stack.waitFor(holder, ['RUNNING']);
    const token = await tokenFor(stack, holder);
    const call = (text: string) =>
      post(
        'mutation($input: InvokeTeamToolInput!) { invokeTeamTool(input: $input) }',
        { input: { name: 'team_message', arguments: { to: ['Bob'], text, delivery: 'quiet', message_id: 'tool-1' } } },
        token,
      );
    expect((await call('from the tool')).errors).toEqual([]);
    expect(refusal(await call('changed'))).toEqual({
      code: 'IDEMPOTENCY_CONFLICT',
      field: 'message_id',
      message: 'This message id was already used for another message.',
    });
    await stack.cancel(holder);
    await stack.waitFor(holder, ['CANCELLED']);
  });

  it('names task_id and depends_on for the task tools, where createTask names dependsOn', async () => {
    const [ada] = team.members;
    const holder = await ask(stack, team.id, ada.id, '!sleep 600000');
    await stack.waitFor(holder, ['RUNNING']);
    const token = await tokenFor(stack, holder);
    const tool = (name: string, args: Record<string, unknown>) =>
      post(
        'mutation($input: InvokeTeamToolInput!) { invokeTeamTool(input: $input) }',
        { input: { name, arguments: args } },
        token,
      );
    expect(refusal(await tool('task_claim', { task_id: 'task_nope', expected_revision: 1 }))).toMatchObject({
      code: 'NOT_FOUND',
      field: 'task_id',
    });
    expect(refusal(await tool('task_create', { title: 'Draft', depends_on: ['task_nope'] }))).toMatchObject({
      code: 'INVALID_INPUT',
      field: 'depends_on',
    });
    const input = { teamId: team.id, title: 'Draft', dependsOn: ['task_nope'], clientRequestId: 'dep-nope' };
    expect(refusal(await post(CREATE_TASK, { input }, OWNER_TOKENS.alice))).toMatchObject({
      code: 'INVALID_INPUT',
      field: 'dependsOn',
    });
    await stack.cancel(holder);
    await stack.waitFor(holder, ['CANCELLED']);
  });
});
