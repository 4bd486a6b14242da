import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lintCompose } from './compose-lint.js';
import { lintDockerfile, parseDockerfile } from './dockerfile-lint.js';

const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
const compose = readFileSync(new URL('../../compose.yaml', import.meta.url), 'utf8');

describe('the Dockerfile linter', () => {
  it("passes the project's Dockerfile and compose.yaml", () => {
    expect(lintDockerfile(dockerfile)).toEqual([]);
    expect(lintCompose(compose)).toEqual([]);
  });

  it('joins continuation lines and drops comments', () => {
    const parsed = parseDockerfile('# c\nFROM a:1 AS x\nRUN one \\\n  two\n');
    expect(parsed).toEqual([
      { keyword: 'FROM', args: 'a:1 AS x', line: 2 },
      { keyword: 'RUN', args: 'one two', line: 3 },
    ]);
  });

  it.each([
    ['an unpinned base image', (d: string) => d.replace('node:20.20.2-bookworm-slim', 'node:latest'), /pin the base/],
    ['a root final stage', (d: string) => d.replace('USER node', 'USER root'), /non-root USER/],
    ['no HEALTHCHECK', (d: string) => d.replace(/HEALTHCHECK[^\n]*\\\n[^\n]*\n/, ''), /HEALTHCHECK/],
    ['no data volume', (d: string) => d.replace('VOLUME ["/data"]', ''), /\/data volume/],
    ['a shell-form entry point', (d: string) => d.replace('CMD ["serve"]', 'CMD serve'), /exec form/],
    ['apt lists left behind', (d: string) => d.replace(' \\\n  && rm -rf /var/lib/apt/lists/*', ''), /apt\/lists/],
    ['an unpinned global install', (d: string) => d.replace('pnpm@12.4.2', 'pnpm'), /pin global/],
    ['ADD', (d: string) => d.replace('COPY . .', 'ADD . .'), /not ADD/],
  ])('refuses %s', (_name, change, message) => {
    const changed = change(dockerfile);
    expect(changed).not.toBe(dockerfile);
    expect(lintDockerfile(changed).join('\n')).toMatch(message);
  });

  it('refuses a compose file whose servers share a port or skip the database health', () => {
    expect(lintCompose(compose.replace('"4002:4000"', '"4001:4000"')).join('\n')).toMatch(/reuses host port/);
    expect(
      lintCompose(compose.replaceAll('condition: service_healthy', 'condition: service_started')).join('\n'),
    ).toMatch(/wait for postgres/);
  });
});
