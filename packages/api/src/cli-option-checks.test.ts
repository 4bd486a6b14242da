import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseServeOptions, USAGE, UsageError } from './cli-options.js';

describe('serve refuses values it would otherwise misread', () => {
  it('refuses a public URL with credentials, a query or a fragment, which the appended paths would break', () => {
    for (const bad of ['https://u:pw@teams.example', 'https://teams.example/?x=1', 'https://teams.example/#top']) {
      expect(() => parseServeOptions(['--public-url', bad], {})).toThrow(
        `--public-url must not hold credentials, a query or a fragment, got "${bad}"`,
      );
    }
    expect(parseServeOptions(['--public-url', 'https://teams.example/base/'], {}).publicUrl).toBe(
      'https://teams.example/base',
    );
  });

  it('refuses a blank flag, naming it, but takes a blank environment variable as unset', () => {
    for (const flag of ['port', 'host', 'database', 'config', 'allowed-origins', 'public-url', 'max-body-bytes']) {
      expect(() => parseServeOptions([`--${flag}=`], {})).toThrow(`--${flag} must not be blank`);
      expect(() => parseServeOptions([`--${flag}`, '  '], {})).toThrow(UsageError);
    }
    expect(parseServeOptions([], { AGENT_TEAMS_PORT: '', AGENT_TEAMS_DATABASE: ' ' })).toMatchObject({
      port: 4000,
      database: './data/teams.sqlite',
    });
  });

  it('names --port, not its twin, when the flag is wrong, and trims the twin', () => {
    expect(() => parseServeOptions(['--port', 'x'], { AGENT_TEAMS_PORT: '5000' })).toThrow(/^--port must be/);
    expect(parseServeOptions([], { AGENT_TEAMS_PORT: ' 5000 ' }).port).toBe(5000);
  });

  it('refuses a --database URL that is not PostgreSQL, or a PostgreSQL URL that does not parse, without echoing it', () => {
    expect(() => parseServeOptions(['--database', 'mysql://db/x'], {})).toThrow(
      '--database must be a SQLite file path, :memory:, or a postgres:// URL',
    );
    expect(() => parseServeOptions([], { AGENT_TEAMS_DATABASE: 'sqlite:teams.db' })).toThrow(/^AGENT_TEAMS_DATABASE/);
    expect(() => parseServeOptions(['--database', 'postgres://u:secret@db:port/x'], {})).toThrow(
      /--database is not a valid postgres:\/\/ URL/,
    );
    expect(() => parseServeOptions(['--database', 'postgres://u:secret@db:port/x'], {})).not.toThrow(/secret/);
    for (const ok of ['./data/x.sqlite', '/var/lib/x.sqlite', ':memory:', 'postgresql://u@db/x', 'C:\\data\\x.db']) {
      expect(parseServeOptions(['--database', ok], {}).database).toBe(ok);
    }
  });

  it('refuses an allowed origin that could never match a browser Origin header', () => {
    for (const bad of ['app.example', 'https://app.example/path', 'https://app.example:443', 'ftp://app.example']) {
      expect(() => parseServeOptions(['--allowed-origins', `https://ok.example,${bad}`], {})).toThrow(
        `--allowed-origins: "${bad}" is not an origin`,
      );
    }
    expect(() => parseServeOptions([], { AGENT_TEAMS_ALLOWED_ORIGINS: 'x' })).toThrow(/^AGENT_TEAMS_ALLOWED_ORIGINS/);
    expect(
      parseServeOptions(['--allowed-origins', 'https://App.example/, http://127.0.0.1:5173, *'], {}).allowedOrigins,
    ).toEqual(['https://App.example/', 'http://127.0.0.1:5173', '*']);
  });
});

const srcDir = fileURLToPath(new URL('.', import.meta.url));
const readme = readFileSync(join(srcDir, '../../../README.md'), 'utf8');

/** The non-test TypeScript files under `src/cli*` and `src/config/`, where serve reads its settings. */
function settingSources(): string[] {
  const cli = readdirSync(srcDir).filter((name) => name.startsWith('cli') && !name.endsWith('.test.ts'));
  const config = readdirSync(join(srcDir, 'config'))
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => join('config', name));
  return [...cli, ...config].map((name) => readFileSync(join(srcDir, name), 'utf8'));
}

describe('the documentation of serve', () => {
  it('lists every environment variable the CLI and configuration read, in --help and in the README', () => {
    const names = new Set(
      settingSources().flatMap((text) => [...text.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1])),
    );
    expect(names).toContain('AGENT_TEAMS_DEMO_PROVIDER');
    for (const name of names) {
      expect(USAGE, name).toContain(name);
      expect(readme, name).toContain(`\`${name}`);
    }
  });

  it('lists every serve flag in --help and in the README', () => {
    const source = readFileSync(join(srcDir, 'cli-options.ts'), 'utf8');
    const flags = [...source.matchAll(/'?([a-z][a-z-]*)'?: \{ type: 'string' \}/g)].map((m) => `--${m[1]}`);
    expect(flags).toContain('--pg-prepared-statements');
    for (const flag of flags) {
      expect(USAGE, flag).toContain(`${flag} <`);
      expect(readme, flag).toContain(`\`${flag} <`);
    }
  });
});
