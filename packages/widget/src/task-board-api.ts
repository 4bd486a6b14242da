import type { Api } from './api.js';

/** The contract's task statuses, in the order the board shows their columns. */
export const TASK_STATUSES = ['OPEN', 'CLAIMED', 'DONE', 'CANCELLED'] as const;

/** A task's status (`TaskStatus` in the schema). */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** A task as the board reads it (see {@link TASK_FIELDS}). */
export interface TaskView {
  id: string;
  title: string;
  details: string | null;
  status: TaskStatus;
  revision: number;
  writeScope: string[];
  owner: { id: string; name: string } | null;
  /** The dependencies as the server last answered them; the board shows their live state by id. */
  dependsOn: { id: string; title: string; status: TaskStatus }[];
  updatedAt: string;
}

/** A write scope that overlaps an unfinished task's scope (the write was accepted). */
export interface TaskWarningView {
  kind: string;
  task: { id: string; title: string };
  scope: string;
}

/** Every field of a task the board shows or compares. */
const TASK_FIELDS = `id title details status revision writeScope updatedAt owner { id name }
  dependsOn { id title status }`;

/** Tasks per page: 256 tasks fit in six reads, and the document stays under the server's cost limit. */
export const TASK_PAGE = 50;

/** One page of the board, with the team's event seq read before it (where the subscription starts). */
export const TASKS_QUERY = `query Tasks($id: ID!, $after: String) { team(id: $id) { id lastEventSeq
  tasks(first: ${TASK_PAGE}, after: $after) { totalCount pageInfo { hasNextPage endCursor }
    edges { node { ${TASK_FIELDS} } } } } }`;
/** One task as it is now (after a stale write). */
export const TASK_QUERY = `query Task($id: ID!) { node(id: $id) { ... on Task { ${TASK_FIELDS} } } }`;
/** The board's own `teamEvents` subscription: only task changes carry fields, the rest just their seq. */
export const TASK_EVENTS = `subscription TaskEvents($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
  __typename seq ... on TaskChanged { reason task { ${TASK_FIELDS} } } } }`;

const PAYLOAD = `task { ${TASK_FIELDS} } warnings { kind scope task { id title } }`;
export const CREATE_TASK = `mutation CreateTask($input: CreateTaskInput!) { createTask(input: $input) { ${PAYLOAD} } }`;
export const UPDATE_TASK = `mutation UpdateTask($input: UpdateTaskInput!) { updateTask(input: $input) { ${PAYLOAD} } }`;
export const ASSIGN_TASK = `mutation AssignTask($input: AssignTaskInput!) { assignTask(input: $input) { ${PAYLOAD} } }`;
export const CANCEL_TASK = `mutation CancelTask($input: CancelTaskInput!) { cancelTask(input: $input) { ${PAYLOAD} } }`;

/** What a task write answers. */
export interface TaskPayload {
  task: TaskView;
  warnings: TaskWarningView[];
}

/** A refused task write with what the server said about it (`extensions`). */
export class TaskWriteError extends Error {
  constructor(
    readonly code: string,
    /** TASK_STALE_REVISION: the revision the task is at now. */
    readonly currentRevision?: number,
    /** TASK_BLOCKED: the ids of the dependencies not done; TASK_CYCLE: the ids around the cycle. */
    readonly ids: string[] = [],
    /** TASK_CLAIMED: who owns the task. */
    readonly owner?: string,
  ) {
    super(`[agent-teams/widget] ${code}`);
  }
}

type Extensions = { code?: string; currentRevision?: number; blockedBy?: string; cycle?: string; owner?: string };

/**
 * Sends one task mutation and answers its payload, or throws a {@link TaskWriteError} carrying
 * the error's extensions (`Api.mutate` keeps only the code; the board needs the current revision,
 * the open dependencies and the cycle).
 */
export async function writeTask(api: Api, document: string, input: Record<string, unknown>): Promise<TaskPayload> {
  const result = await api.client.mutation(document, { input }).toPromise();
  const first = result.error?.graphQLErrors[0];
  if (first) {
    const ext = (first.extensions ?? {}) as Extensions;
    const ids = (ext.blockedBy ?? ext.cycle ?? '').split(',').filter(Boolean);
    throw new TaskWriteError(ext.code ?? 'UNEXPECTED', ext.currentRevision, ids, ext.owner);
  }
  if (result.error || !result.data) throw new TaskWriteError('NETWORK');
  return Object.values(result.data as Record<string, TaskPayload>)[0] as TaskPayload;
}

/** The code of a failed board operation (NETWORK for anything that is not a GraphQL error). */
export function taskErrorCode(error: unknown): string {
  return error instanceof TaskWriteError || (error instanceof Error && 'code' in error)
    ? String((error as { code: string }).code)
    : 'NETWORK';
}
