import type { MemberToolSpec, ToolArgumentSchema } from './member-tool-specs.js';

/**
 * One member tool's spec: its arguments are an object that admits only the listed properties.
 * (Its own file so every registry file can use it without importing another's values.)
 */
export function spec<N extends string>(
  name: N,
  description: string,
  properties: Readonly<Record<string, ToolArgumentSchema>>,
  required: readonly string[] = [],
): MemberToolSpec<N> {
  return { name, description, inputSchema: { type: 'object', properties, required, additionalProperties: false } };
}
