import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import type { MemberToolSpec, ToolArgumentSchema } from './tool-spec.js';

const TYPE_WORDS: Readonly<Record<ToolArgumentSchema['type'], string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
};

function hasType(value: unknown, schema: ToolArgumentSchema): boolean {
  switch (schema.type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value) && (schema.items === undefined || value.every((item) => typeof item === 'string'));
  }
}

/**
 * Checks `args` against the types `spec.inputSchema` states: every required argument is given
 * (null counts as absent, as the tools read it) and every given one has its type.
 *
 * @remarks Only the shape a caller can see in the schema, never a value rule (lengths, blank
 * text, a member's or an agent's existence): those stay the use case's, with its wording. It runs
 * before who-may-call checks, as a mutation's input is coerced before its resolver runs and as
 * the owner tools check their `inputSchema` first (decision 0090), so a malformed call gets the
 * same answer whoever makes it.
 * @throws DomainError INVALID_INPUT naming the argument in `field`.
 */
export function checkArgumentTypes(spec: MemberToolSpec, args: Readonly<Record<string, unknown>>): void {
  const { properties, required } = spec.inputSchema;
  for (const key of required) {
    if (args[key] === undefined || args[key] === null) {
      throw new DomainError(ErrorCode.INVALID_INPUT, `${spec.name} needs "${key}".`, { field: key });
    }
  }
  for (const [key, schema] of Object.entries(properties)) {
    const value = args[key];
    if (value === undefined || value === null || hasType(value, schema)) continue;
    const what = schema.type === 'array' && schema.items ? `a list of ${schema.items.type}s` : TYPE_WORDS[schema.type];
    throw new DomainError(ErrorCode.INVALID_INPUT, `${key} must be ${what}.`, { field: key });
  }
}
