import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import { validateText } from '../text/validate-text.js';
import { asTaskId, type TaskId } from './task.js';

const invalid = (field: string, message: string, details: Record<string, number> = {}): DomainError =>
  new DomainError(ErrorCode.INVALID_INPUT, message, { field, ...details });

/**
 * A task title: 1–200 characters, non-blank, storable.
 * @throws DomainError INVALID_INPUT `{ field, maxChars, maxBytes }`.
 */
export const validateTaskTitle = (field: string, value: unknown): string =>
  validateText(field, value, Limits.taskTitle);

/**
 * Task details: absent or empty means none; else at most 4,000 characters and 8,000 bytes.
 * @throws DomainError INVALID_INPUT `{ field, maxChars, maxBytes }`.
 */
export function validateTaskDetails(field: string, value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  return validateText(field, value, Limits.taskDetails);
}

/**
 * A task's result: absent or empty means none; else at most 6,000 UTF-8 bytes, storable.
 * @throws DomainError INVALID_INPUT `{ field, maxBytes }`.
 */
export function validateTaskResult(field: string, value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  // Characters never exceed bytes, so only the byte rule can refuse.
  return validateText(field, value, { maxChars: Limits.taskResultBytes, maxBytes: Limits.taskResultBytes });
}

function stringList(field: string, value: unknown, max: number): readonly unknown[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw invalid(field, `${field} must be a list.`);
  if (value.length > max) throw invalid(field, `${field} holds at most ${max} entries.`, { max });
  return value;
}

/**
 * Dependencies: at most 32 task ids, duplicates folded (order kept).
 * @throws DomainError INVALID_INPUT `{ field, max }`.
 */
export function validateDependsOn(field: string, value: unknown): readonly TaskId[] {
  const list = stringList(field, value, Limits.dependenciesPerTask);
  const ids = list.map((id) => {
    if (typeof id !== 'string' || id.length === 0 || id.length > 128)
      throw invalid(field, `${field} must hold task ids.`);
    return asTaskId(id);
  });
  return [...new Set(ids)];
}

/**
 * C0 and C1 control characters (a path never holds one) and Unicode's line and paragraph
 * separators, which start a new line wherever a scope is shown, as in a member role.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: this pattern exists to find them.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Write scopes: at most 20 strings of 1–200 characters each (trimmed), one line without control
 * characters or line separators (U+2028, U+2029), duplicates folded.
 *
 * @remarks Refusing control characters also bounds a scope's JSON to about 400 bytes (a control
 * character would escape to six), so a task with 20 scopes always fits a `task_list` answer.
 * @throws DomainError INVALID_INPUT `{ field, max }` or `{ field, maxChars, maxBytes }`.
 */
export function validateWriteScope(field: string, value: unknown): readonly string[] {
  const list = stringList(field, value, Limits.writeScopesPerTask);
  const scopes = list.map((scope) => validateText(field, scope, Limits.writeScope));
  if (scopes.some((scope) => CONTROL.test(scope))) {
    throw invalid(field, `${field} entries must be one line without control characters.`);
  }
  return [...new Set(scopes)];
}

/**
 * An `expected_revision`: a positive integer.
 * @throws DomainError INVALID_INPUT `{ field }`.
 */
export function validateRevision(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalid(field, `${field} must be the task's current revision (an integer from 1).`);
  }
  return value;
}
