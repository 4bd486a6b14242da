import { afterAll, beforeAll } from 'vitest';
import { createTeam, expectData, type TeamFixture } from '../graphql/fixtures.js';
import { createGraphqlStack, type GqlResponse, type GraphqlStack } from '../graphql/graphql-stack.js';

/** The task fields the board tests read. */
export const TASK_FIELDS =
  'id title details status revision writeScope result dependsOn { id } owner { name } createdBy { name }';

export const CREATE_TASK = `mutation($input: CreateTaskInput!) {
  createTask(input: $input) { task { ${TASK_FIELDS} } warnings { kind scope task { id } } } }`;
export const UPDATE_TASK = `mutation($input: UpdateTaskInput!) {
  updateTask(input: $input) { task { ${TASK_FIELDS} } warnings { kind scope task { id } } } }`;
export const ASSIGN_TASK = `mutation($input: AssignTaskInput!) { assignTask(input: $input) { task { ${TASK_FIELDS} } } }`;
export const CANCEL_TASK = `mutation($input: CancelTaskInput!) { cancelTask(input: $input) { task { ${TASK_FIELDS} } } }`;
export const TEAM_TASKS = `query($id: ID!, $status: TaskStatus, $first: Int, $after: String) {
  team(id: $id) { tasks(status: $status, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } edges { cursor node { ${TASK_FIELDS} } } } } }`;

/** A task as the board tests read it. */
export interface TaskView {
  readonly id: string;
  readonly title: string;
  readonly status: string;
  readonly revision: number;
  readonly owner: { readonly name: string } | null;
  readonly createdBy: { readonly name: string } | null;
  readonly dependsOn: readonly { readonly id: string }[];
}

let counter = 0;

/** Creates a task through GraphQL and returns it (fails the test on errors). */
export async function createTask(
  stack: GraphqlStack,
  teamId: string,
  input: Record<string, unknown> = {},
  token?: string,
): Promise<TaskView> {
  counter += 1;
  const response = await stack.gql(
    CREATE_TASK,
    { input: { teamId, title: `Task ${counter}`, clientRequestId: `task-${counter}`, ...input } },
    token,
  );
  return (expectData(response).createTask as { task: TaskView }).task;
}

/** The task of a payload field of a response without errors. */
export const taskOf = (response: GqlResponse, field: string): TaskView =>
  (expectData(response)[field] as { task: TaskView }).task;

/**
 * The board tests' stack: no scheduler (requests stay queued) and one team, made before the file's
 * tests and closed after them; `ready` receives both.
 */
export function boardPerFile(ready: (board: { stack: GraphqlStack; team: TeamFixture }) => void): void {
  let stack: GraphqlStack | null = null;
  beforeAll(async () => {
    stack = await createGraphqlStack({ scheduler: false });
    ready({ stack, team: await createTeam(stack) });
  });
  afterAll(async () => stack?.close());
}
