import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README's first command ends in `pnpm start`, which runs the sources: its server must run
// graphql-js built for production, as the installed bundle and the container image do (graphql-js
// checks every failed type test for a second copy of itself otherwise: docs/deployment.md).

const ROOT_PACKAGE = fileURLToPath(new URL('../../../../package.json', import.meta.url));

describe('pnpm start', () => {
  it('starts the server from the sources with NODE_ENV=production', () => {
    const scripts = (JSON.parse(readFileSync(ROOT_PACKAGE, 'utf8')) as { scripts: Record<string, string> }).scripts;
    const server = scripts.start?.split('&&').find((part) => part.includes('cli.ts serve'));
    expect(server?.trim()).toMatch(/^NODE_ENV=production node .*packages\/api\/src\/cli\.ts serve$/);
  });

  it('builds the widget first only when its inputs changed since the build in its dist/', () => {
    const scripts = (JSON.parse(readFileSync(ROOT_PACKAGE, 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start?.split('&&')[0]?.trim()).toBe('pnpm --filter @agent-teams/widget build --if-changed');
  });
});
