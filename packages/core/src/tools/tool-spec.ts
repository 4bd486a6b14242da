/** A JSON Schema (draft 2020-12 subset) describing one argument of a tool. */
export interface ToolArgumentSchema {
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
  readonly description: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  /** The allowed values of a string argument. */
  readonly enum?: readonly string[];
  /** The schema of an array argument's items. */
  readonly items?: { readonly type: 'string'; readonly maxLength?: number };
  /** Bounds of an array argument. */
  readonly maxItems?: number;
}

/** The JSON Schema of a tool's arguments: always an object of named arguments. */
export interface ToolInputSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, ToolArgumentSchema>>;
  readonly required: readonly string[];
  readonly additionalProperties: false;
}

/** One member tool as every surface shows it: model runtimes, MCP and the reference docs. */
export interface MemberToolSpec<N extends string = string> {
  readonly name: N;
  /** Written for a model: what the tool does, when to use it and what not to expect. */
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
}

/** Builds a {@link MemberToolSpec}: an object of named arguments, no others allowed. */
export function spec<N extends string>(
  name: N,
  description: string,
  properties: Readonly<Record<string, ToolArgumentSchema>>,
  required: readonly string[] = [],
): MemberToolSpec<N> {
  return { name, description, inputSchema: { type: 'object', properties, required, additionalProperties: false } };
}
