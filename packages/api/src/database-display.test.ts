import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFreshPostgres, type FreshPostgres } from '../test/support/fresh-postgres.js';
import { databaseForDisplay, HIDDEN_PASSWORD, urlForDisplay } from './database-display.js';

const apiRoot = fileURLToPath(new URL('../', import.meta.url));

/** Starts the real CLI on `database` (with `args`); resolves with what it printed once it listens, then stops it. */
function bannerOf(database: string, ...args: string[]): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@agent-teams/source',
      '--import',
      'tsx',
      'src/cli.ts',
      'serve',
      '--port',
      '0',
      '--database',
      database,
      ...args,
    ],
    { cwd: apiRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let listening = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the CLI did not start in time:\n${out}`)), 30_000);
    const collect = (chunk: Buffer) => {
      out += chunk.toString();
      if (!listening && /\n {2}database: .*\n/.test(out)) {
        listening = true;
        clearTimeout(timer);
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (listening) resolve(out);
      else reject(new Error(`the CLI exited with ${code} before listening:\n${out}`));
    });
  });
}

describe('the database as the server prints it', () => {
  it('hides the password and password parameters of a PostgreSQL URL, and nothing else', () => {
    expect(databaseForDisplay('postgres://agent:s3cret@db.internal:5432/teams')).toBe(
      `postgres://agent:${HIDDEN_PASSWORD}@db.internal:5432/teams`,
    );
    expect(databaseForDisplay('postgresql://a:p%40ss@db/teams?sslmode=require&sslpassword=k3y')).toBe(
      `postgresql://a:${HIDDEN_PASSWORD}@db/teams?sslmode=require&sslpassword=${HIDDEN_PASSWORD}`,
    );
    expect(databaseForDisplay('postgres://a:pw@[not-a-host/teams?x=1')).toBe(
      `postgres://a:${HIDDEN_PASSWORD}@[not-a-host/teams`,
    );
    for (const kept of ['postgres://agent@db/teams', './data/teams.sqlite', ':memory:']) {
      expect(databaseForDisplay(kept)).toBe(kept);
    }
  });

  it('hides the password and secret-named parameters of any URL, such as a traces endpoint', () => {
    expect(urlForDisplay('https://tenant:t0ken@otlp.example/v1/traces?api_key=k3y&region=eu')).toBe(
      `https://tenant:${HIDDEN_PASSWORD}@otlp.example/v1/traces?api_key=${HIDDEN_PASSWORD}&region=eu`,
    );
    expect(urlForDisplay('http://collector:4318/v1/traces')).toBe('http://collector:4318/v1/traces');
  });

  it('logs the traces endpoint of the real CLI without its credentials', async () => {
    const endpoint = 'http://tenant:otlp-secret-51c2@127.0.0.1:9/v1/traces?api_key=otlp-key-9d0e';
    const output = await bannerOf(':memory:', '--otlp-endpoint', endpoint);
    expect(output, output).toContain('"message":"sending traces"');
    expect(output).toContain(`http://tenant:${HIDDEN_PASSWORD}@127.0.0.1:9/v1/traces?api_key=${HIDDEN_PASSWORD}`);
    expect(output).not.toContain('otlp-secret-51c2');
    expect(output).not.toContain('otlp-key-9d0e');
  });

  describe('in the start-up banner of the real CLI on PostgreSQL', () => {
    let pg: FreshPostgres;
    beforeAll(async () => {
      pg = await createFreshPostgres('banner');
    });
    afterAll(() => pg.drop());

    it('names the database without its password', async () => {
      const url = new URL(pg.url);
      // Trust authentication ignores a password; a server that checks one has it in the URL already.
      if (url.password === '') url.password = 'banner-secret-7f3a';
      const password = decodeURIComponent(url.password);
      const output = await bannerOf(url.toString());
      expect(output).toContain(`listening on http://127.0.0.1:`);
      expect(output).toContain(`  database: postgres://${url.username}:${HIDDEN_PASSWORD}@${url.host}${url.pathname}`);
      expect(output).not.toContain(password);
    });
  });
});
