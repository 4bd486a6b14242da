import { Limits } from '../limits/limits.js';
import { type MemberToolSpec, spec, type ToolArgumentSchema } from './tool-spec.js';

const taskId: ToolArgumentSchema = { type: 'string', description: 'Id of the task (from task_list or task_create).' };
const expectedRevision: ToolArgumentSchema = {
  type: 'integer',
  minimum: 1,
  description:
    "The task's revision as you last read it. A write based on another revision is refused with " +
    'TASK_STALE_REVISION and current_revision: read the task again before retrying.',
};
const writeRequestId: ToolArgumentSchema = {
  type: 'string',
  minLength: 1,
  maxLength: Limits.clientRequestId.maxChars,
  description:
    'Optional: a stable id for this write, reused on retries. A retry of a write that succeeded answers ' +
    'the task as it is now instead of TASK_STALE_REVISION; the same id with other arguments is refused.',
};
const write = { task_id: taskId, expected_revision: expectedRevision, request_id: writeRequestId };
const fields: Readonly<Record<string, ToolArgumentSchema>> = {
  title: { type: 'string', maxLength: Limits.taskTitle.maxChars, description: 'Short title of the task.' },
  details: {
    type: 'string',
    maxLength: Limits.taskDetails.maxChars,
    description: `What to do and how to tell it is done (at most ${Limits.taskDetails.maxChars} characters).`,
  },
  depends_on: {
    type: 'array',
    items: { type: 'string' },
    maxItems: Limits.dependenciesPerTask,
    description: 'Ids of tasks that must be done before this one can be claimed (no cycles).',
  },
  write_scope: {
    type: 'array',
    items: { type: 'string', maxLength: Limits.writeScope.maxChars },
    maxItems: Limits.writeScopesPerTask,
    description: 'Paths or areas this task will change; overlaps with unfinished tasks are warned about.',
  },
};

/**
 * The task board tools (contract `teamwork.md`), listed after the team reads in
 * `MEMBER_TOOL_SPECS`. Every write names the revision it was based on.
 */
export const TASK_TOOL_SPECS = [
  spec(
    'task_create',
    "Add a task to the team's shared board. Anyone may create; only the lead may set an assignee.",
    {
      ...fields,
      assignee: { type: 'string', description: 'Lead only: name or id of the member who owns it from the start.' },
      request_id: {
        type: 'string',
        minLength: 1,
        maxLength: Limits.clientRequestId.maxChars,
        description: 'Optional: a stable id for this task, reused on retries (the same id never creates twice).',
      },
    },
    ['title'],
  ),
  spec('task_list', "List the team's tasks in creation order (cancelled ones included), filtered.", {
    status: {
      type: 'string',
      enum: ['open', 'claimed', 'done', 'cancelled'],
      description: 'Only tasks in this status.',
    },
    owner: { type: 'string', description: 'Only tasks this member (name or id) owns.' },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: Limits.pageSize.max,
      description: `Page size (default ${Limits.pageSize.default}).`,
    },
    cursor: { type: 'string', description: 'next_cursor of the previous page (same filters).' },
  }),
  spec(
    'task_claim',
    'Take an open task as yours. Every dependency must be done (TASK_BLOCKED names the rest); a task ' +
      'another member owns is refused (TASK_CLAIMED).',
    write,
    ['task_id', 'expected_revision'],
  ),
  spec(
    'task_update',
    "Change a task's title, details, dependencies or write scope (its creator, owner or the lead).",
    { ...write, ...fields },
    ['task_id', 'expected_revision'],
  ),
  spec(
    'task_complete',
    'Mark a task done, with an optional result (its owner or the lead).',
    {
      ...write,
      result: { type: 'string', description: `What came of it (at most ${Limits.taskResultBytes} bytes).` },
    },
    ['task_id', 'expected_revision'],
  ),
  spec('task_release', 'Give a task you own back to the board (its owner or the lead).', write, [
    'task_id',
    'expected_revision',
  ]),
  spec('task_cancel', 'Cancel a task that is not done; it stays listed (its creator or the lead).', write, [
    'task_id',
    'expected_revision',
  ]),
] as const satisfies readonly MemberToolSpec[];
