import { checkText, type TextLimit, type TextProblem } from './limits.js';

/**
 * The task board's limits (contract "Task board"), checked in the browser before sending so the
 * draft is never lost. Duplicated on purpose, like `LIMITS`: the widget imports nothing internal.
 */
export const TASK_LIMITS = {
  title: { chars: 200, bytes: 800 },
  details: { chars: 4000, bytes: 8000 },
  scope: { chars: 200, bytes: 800 },
  dependencies: 32,
  scopes: 20,
  tasksPerTeam: 256,
} as const;

/** True while a team holding `count` tasks can take one more (the board's New task button). */
export const canCreateTask = (count: number): boolean => count < TASK_LIMITS.tasksPerTeam;

/** What a person typed into the task form. */
export interface TaskDraft {
  title: string;
  details: string;
  /** Ids of the tasks this one depends on. */
  dependsOn: string[];
  /** Write scopes, one per line. */
  scopes: string;
}

/** The write scopes of a draft: one per line, trimmed, empty lines and repeats dropped. */
export function draftScopes(draft: Pick<TaskDraft, 'scopes'>): string[] {
  return [...new Set(draft.scopes.split('\n').map((line) => line.trim()))].filter(Boolean);
}

/** Why a draft cannot be sent: the field, and the text problem or `tooMany` (with the limit). */
export type DraftProblem =
  | { field: 'title' | 'details' | 'scope'; problem: Exclude<TextProblem, null>; limit: TextLimit }
  | { field: 'dependencies' | 'scopes'; problem: 'tooMany'; max: number };

/**
 * Checks a draft as the server will: a non-blank title within its limit, details empty or within
 * theirs, at most 32 dependencies and 20 write scopes of at most 200 characters each.
 * @returns the first problem, or null when the draft can be sent.
 */
export function checkTaskDraft(draft: TaskDraft): DraftProblem | null {
  const title = checkText(draft.title, TASK_LIMITS.title);
  if (title) return { field: 'title', problem: title, limit: TASK_LIMITS.title };
  if (draft.details.trim() !== '') {
    const details = checkText(draft.details, TASK_LIMITS.details);
    if (details) return { field: 'details', problem: details, limit: TASK_LIMITS.details };
  }
  if (draft.dependsOn.length > TASK_LIMITS.dependencies) {
    return { field: 'dependencies', problem: 'tooMany', max: TASK_LIMITS.dependencies };
  }
  const scopes = draftScopes(draft);
  if (scopes.length > TASK_LIMITS.scopes) return { field: 'scopes', problem: 'tooMany', max: TASK_LIMITS.scopes };
  for (const scope of scopes) {
    const problem = checkText(scope, TASK_LIMITS.scope);
    if (problem) return { field: 'scope', problem, limit: TASK_LIMITS.scope };
  }
  return null;
}
