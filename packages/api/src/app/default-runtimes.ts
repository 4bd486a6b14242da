import { A2aRuntime } from '../runtimes/a2a/a2a-runtime.js';
import { OpenAiRuntime } from '../runtimes/openai/openai-runtime.js';
import { ScriptedRuntime } from '../runtimes/scripted/scripted-runtime.js';
import type { AppRuntime, RuntimeParts } from './app-options.js';

/**
 * The runtimes a server runs by default: `scripted`, `openai` and `a2a`, all durable in the
 * application's database.
 */
export function defaultRuntimes(parts: RuntimeParts): readonly AppRuntime[] {
  const { database, clock, logger, env, mcpUrl, spend, rides } = parts;
  if (database === null) throw new TypeError('[agent-teams/api] the default runtimes need a database');
  return [
    new ScriptedRuntime({ db: database.db, dialect: database.dialect, clock, logger, rides }),
    new OpenAiRuntime({ db: database.db, dialect: database.dialect, clock, logger, env, spend, rides }),
    new A2aRuntime({ db: database.db, clock, logger, env, mcpUrl }),
  ];
}
