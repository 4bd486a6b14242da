import { readFileSync } from 'node:fs';

let cached: string | null = null;

/** The version of `@agent-teams/api` (its package.json), read once. */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return cached;
}
