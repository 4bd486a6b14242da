import { DomainError, isDomainError } from '../errors/domain-error.js';

/**
 * The member tools' argument for each field name the shared rules report in GraphQL's terms.
 *
 * @remarks The task board's decisions (`tasks/`) and the request and spawn idempotency checks are
 * shared with the GraphQL mutations and name the mutations' input fields (`taskId`, `dependsOn`,
 * `expectedRevision`, `clientRequestId`). The tools' callers (a model, an MCP client) only know
 * the tools' snake_case arguments, so the one rename happens at the tools' edge, as the GraphQL
 * edge renames the tools' names the mailbox reports (`server/mask-error.ts`).
 */
const TOOL_ARGUMENTS: ReadonlyMap<string, string> = new Map([
  ['taskId', 'task_id'],
  ['dependsOn', 'depends_on'],
  ['expectedRevision', 'expected_revision'],
  ['clientRequestId', 'request_id'],
]);

/**
 * `error` with its `field` (and the same word in its message) named as the tool that raised it
 * names the argument; unchanged when the field is already the tool's, or the tool takes no such
 * argument (a name only a mutation has stays, rather than pointing at an argument that is not there).
 * @param takes the arguments of the tool that raised `error`.
 */
export function inToolArgumentNames(error: unknown, takes: readonly string[]): unknown {
  if (!isDomainError(error)) return error;
  const field = error.details.field;
  if (typeof field !== 'string') return error;
  const argument = TOOL_ARGUMENTS.get(field);
  if (argument === undefined || !takes.includes(argument)) return error;
  const message = error.message.replace(new RegExp(`\\b${field}\\b`, 'g'), argument);
  return new DomainError(error.code, message, { ...error.details, field: argument });
}
