import type { AgentId } from './ids.js';

/** A configured agent of the catalog (one entry of the config file's `agents`). */
export interface AgentDefinition {
  readonly id: AgentId;
  /** Stable catalog name, e.g. `researcher`. */
  readonly name: string;
  /** Display title, e.g. `Research`. */
  readonly title: string;
  readonly description: string;
  /** Which runtime runs it: `scripted`, `openai`, ... */
  readonly runtime: string;
  /** Deadline of one turn in milliseconds. */
  readonly timeoutMs: number;
  /** Runtime-specific settings (e.g. `model`, `baseUrl` for `openai`). */
  readonly settings: Readonly<Record<string, unknown>>;
}
