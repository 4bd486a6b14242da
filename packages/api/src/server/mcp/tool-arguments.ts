// Loaded with the SDK on the first MCP request (mcp-sdk.ts re-exports it; mcp-tools.ts imports it
// on the first owner tool call): zod is the SDK's own, and the server need not load it to start.
import {
  CallToolRequestParamsSchema,
  CallToolRequestSchema,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { type core, z } from 'zod';
import type { JsonSchema } from './owner-tools.js';

/**
 * `tools/call` as the SDK reads it, except that `arguments` is kept exactly as sent, under
 * `params.sent`, for {@link sentArguments} to check.
 *
 * @remarks Registered in place of `CallToolRequestSchema` for two reasons. The SDK parses a
 * request with the schema it was registered with before its own `tools/call` check runs, so a
 * non-object `arguments` (`[]`, `null`) failed that parse as -32603 with the zod issues as text;
 * read here as "anything", it reaches {@link sentArguments}, which answers -32602 in one sentence.
 * And the SDK's `arguments` record copies the object, dropping an own `__proto__` key, so a tool
 * never saw that argument to refuse it; `z.unknown()` keeps the object as the client sent it.
 * `arguments` is moved aside (not just loosened) because the SDK checks the parsed request against
 * its own schema again before calling the handler.
 */
export const ToolCallRequestSchema = CallToolRequestSchema.extend({
  params: CallToolRequestParamsSchema.extend({ arguments: z.unknown().optional() }).transform(
    ({ arguments: sent, ...params }) => ({ ...params, sent }),
  ),
});

/**
 * The arguments of a `tools/call` as sent: absent is none; anything but a JSON object is the
 * caller's malformed request, not a tool's refusal.
 * @throws McpError InvalidParams (-32602).
 */
export function sentArguments(sent: unknown): Readonly<Record<string, unknown>> {
  if (sent === undefined) return {};
  if (typeof sent === 'object' && sent !== null && !Array.isArray(sent)) return sent as Record<string, unknown>;
  const got = sent === null ? 'null' : Array.isArray(sent) ? 'an array' : `a ${typeof sent}`;
  throw new McpError(ErrorCode.InvalidParams, `tools/call "arguments" must be a JSON object, not ${got}.`);
}

/** The zod schema of each tool's `inputSchema`, converted once. */
const compiled = new WeakMap<JsonSchema, z.ZodType>();

/**
 * The schema without `minItems`/`maxItems`: how many items a list holds is a rule of the API with
 * its own codes (`MEMBER_COUNT` for a team's members), which a generic INVALID_INPUT must not hide.
 */
function withoutCounts(schema: JsonSchema): JsonSchema {
  const kept = Object.entries(schema).filter(([keyword]) => keyword !== 'minItems' && keyword !== 'maxItems');
  return Object.fromEntries(
    kept.map(([keyword, value]) => {
      // Only subschemas are walked: `properties` maps argument names (any name) to schemas.
      if (keyword === 'items' && isSchema(value)) return [keyword, withoutCounts(value)];
      if (keyword !== 'properties' || !isSchema(value)) return [keyword, value];
      return [
        keyword,
        Object.fromEntries(
          Object.entries(value).map(([name, sub]) => [name, isSchema(sub) ? withoutCounts(sub) : sub]),
        ),
      ];
    }),
  );
}

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function zodOf(schema: JsonSchema): z.ZodType {
  let converted = compiled.get(schema);
  if (converted === undefined) {
    converted = z.fromJSONSchema(withoutCounts(schema) as core.JSONSchema.JSONSchema);
    compiled.set(schema, converted);
  }
  return converted;
}

/** `members[1].role` for the path `["members", 1, "role"]`. */
function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`))
    .join('');
}

/** The value at `path` of `args`, reading own properties only. */
function valueAt(args: unknown, path: readonly PropertyKey[]): { found: boolean; value?: unknown } {
  let value = args;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return { found: false };
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return { found: true, value };
}

const TYPE_NAMES: Readonly<Record<string, string>> = { int: 'an integer', array: 'a list', object: 'an object' };
/** What was sent instead: a number or boolean as itself (`1.5` for an integer), anything else by its kind. */
function sentText(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** One sentence naming the argument and the rule it breaks. */
function describe(tool: string, args: unknown, issue: core.$ZodIssue): string {
  const where = pathText(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return `${tool} does not take "${pathText([...issue.path, issue.keys[0] ?? ''])}".`;
    case 'invalid_type': {
      const sent = valueAt(args, issue.path);
      if (!sent.found) return `${tool} requires "${where}".`;
      const expected = TYPE_NAMES[issue.expected] ?? `a ${issue.expected}`;
      return `${tool}: "${where}" must be ${expected}, not ${sentText(sent.value)}.`;
    }
    case 'too_small':
    case 'too_big': {
      const unit = issue.origin === 'string' ? ' characters' : '';
      const bound = issue.code === 'too_small' ? `at least ${issue.minimum}` : `at most ${issue.maximum}`;
      return `${tool}: "${where}" must be ${bound}${unit}.`;
    }
    case 'invalid_value':
      return `${tool}: "${where}" must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}.`;
    default:
      return `${tool}: "${where}": ${issue.message}.`;
  }
}

/**
 * Checks a tool's arguments against its declared `inputSchema` (types, item types, nested
 * objects, required and unknown names, lengths, bounds, enums) before the tool runs.
 *
 * @remarks Unknown names are own-property checks, so `constructor` or `__proto__` is as unknown
 * as any other name. Counts of list items are left to the API (see {@link withoutCounts}).
 * @returns null when they fit, or the sentence of an INVALID_INPUT naming the first argument that does not.
 */
export function argumentProblem(
  tool: string,
  schema: JsonSchema,
  args: Readonly<Record<string, unknown>>,
): string | null {
  const result = zodOf(schema).safeParse(args);
  if (result.success) return null;
  const [first] = result.error.issues;
  return first === undefined ? `${tool}: invalid arguments.` : describe(tool, args, first);
}
