import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { teamInput } from '../graphql/fixtures.js';

const apiRoot = fileURLToPath(new URL('../../', import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), 'agent-teams-cli-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(workDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Spawns the real CLI from the API package; `output` is everything it printed so far. */
function spawnCli(args: string[], env: Record<string, string> = {}): { child: ChildProcess; output: () => string } {
  const child = spawn(
    process.execPath,
    ['--conditions=@agent-teams/source', '--import', 'tsx', 'src/cli.ts', ...args],
    {
      cwd: apiRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  const collect = (chunk: Buffer) => {
    out += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return { child, output: () => out };
}

/** Runs the real CLI as a child process; resolves once it prints its `listening on` line. */
function startCli(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const { child, output } = spawnCli(args, env);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`CLI did not start in time:\n${output()}`)), 30_000);
    const onData = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output());
      if (match?.[1]) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve({ child, url: match[1], output });
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`CLI exited with ${code} before listening:\n${output()}`));
    });
  });
}

/** Runs the CLI to completion and returns its exit code and output. */
function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  const { child, output } = spawnCli(args);
  // 'close', not 'exit': by then everything it printed has been read.
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output: output() })));
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', r));
}

async function gql(url: string, token: string, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: test reads loosely typed GraphQL JSON.
  return (await response.json()) as { data?: Record<string, any>; errors?: { extensions?: { code?: string } }[] };
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The status a request (or a WebSocket upgrade) addressed to `host` gets from the server at `url`. */
function statusFor(url: string, host: string, upgrade = false): Promise<number> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host };
    if (upgrade) {
      Object.assign(headers, {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-protocol': 'graphql-transport-ws',
      });
    }
    const call = request({ host: '127.0.0.1', port, path: upgrade ? '/graphql' : '/health', headers });
    call.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    call.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve(response.statusCode ?? 0);
    });
    call.on('error', reject);
    call.end();
  });
}

const CREATE = `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id status members { id name } } } }`;
const SEND = `mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id status } } }`;
const JOB = `query($id: ID!) { job(id: $id) { status result { available text } } }`;

describe('the agent-teams CLI as a child process', () => {
  const database = join(workDir, 'teams.sqlite');

  it('serves with the demo agents and the development token, runs a request, and stops on SIGTERM', async () => {
    const server = await startCli(['serve', '--port', '0', '--database', database]);
    expect(server.output()).toContain('development token: dev-token');
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);

    const created = await gql(server.url, 'dev-token', CREATE, { input: teamInput({ name: 'Release' }) });
    const team = created.data?.createTeam.team;
    expect(team.members).toHaveLength(2);
    const sent = await gql(server.url, 'dev-token', SEND, {
      input: {
        teamId: team.id,
        memberIds: [team.members[0].id],
        text: 'Find the release notes',
        clientRequestId: 'r1',
      },
    });
    const jobId = sent.data?.sendRequest.jobs[0].id as string;
    const done = await waitFor(async () => {
      const job = (await gql(server.url, 'dev-token', JOB, { id: jobId })).data?.job;
      return job?.status === 'COMPLETED' ? job : undefined;
    });
    expect(done.result).toEqual({ available: true, text: 'Ada: Find the release notes' });

    const unauthenticated = await gql(server.url, 'wrong-token', JOB, { id: jobId });
    expect(unauthenticated.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    // With the well-known token, only requests addressed to the loopback are answered (DNS rebinding).
    const port = new URL(server.url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `app.localhost:${port}`]) {
      expect(await statusFor(server.url, host)).toBe(200);
    }
    for (const host of [`evil.example:${port}`, `localhost.evil.example:${port}`, `127.0.0.1.nip.io:${port}`]) {
      expect(await statusFor(server.url, host)).toBe(421);
      expect(await statusFor(server.url, host, true)).toBe(421);
    }
    expect(await statusFor(server.url, `localhost:${port}`, true)).toBe(101);

    const second = await runCli(['serve', '--port', '0', '--database', database]);
    expect(second.code).toBe(1);
    expect(second.output).toMatch(/already|in use/i);

    server.child.kill('SIGTERM');
    expect(await exitOf(server.child)).toBe(0);
  });

  it('keeps accepted work across a restart on the same file', async () => {
    const server = await startCli(['serve', '--port', '0', '--database', database]);
    const teams = await gql(
      server.url,
      'dev-token',
      '{ viewer { teams { edges { node { name jobs { totalCount } } } } } }',
    );
    expect(teams.data?.viewer.teams.edges).toEqual([{ node: { name: 'Release', jobs: { totalCount: 1 } } }]);
    server.child.kill('SIGINT');
    expect(await exitOf(server.child)).toBe(0);
  });

  it('reads tokens and agents from --config and refuses an invalid one', async () => {
    const config = join(workDir, 'agent-teams.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        auth: { tokens: { 'tok-alice': 'alice' } },
        agents: [
          { name: 'a', title: 'A', description: 'first', runtime: 'scripted' },
          { name: 'b', title: 'B', description: 'second', runtime: 'scripted' },
        ],
      }),
    );
    const server = await startCli(['serve', '--port', '0', '--database', ':memory:'], { AGENT_TEAMS_CONFIG: config });
    expect(server.output()).not.toContain('development token');
    const agents = await gql(server.url, 'tok-alice', '{ agents { edges { node { name title } } } }');
    expect(agents.data?.agents.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['a', 'b']);
    expect((await gql(server.url, 'dev-token', '{ viewer { id } }')).errors?.[0]?.extensions?.code).toBe(
      'UNAUTHENTICATED',
    );
    // Tokens of the operator's own: any host name (a proxy's, say) is answered.
    expect(await statusFor(server.url, 'teams.example')).toBe(200);
    server.child.kill('SIGTERM');
    expect(await exitOf(server.child)).toBe(0);

    const bad = join(workDir, 'bad.config.json');
    writeFileSync(bad, JSON.stringify({ agents: [{ name: 'x', runtime: 'scripted', colour: 'red' }] }));
    const refused = await runCli(['serve', '--port', '0', '--database', ':memory:', '--config', bad]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('agents[0].colour');
  });

  it('refuses bad flags with the usage and exit code 2', async () => {
    const result = await runCli(['serve', '--port', 'abc']);
    expect(result.code).toBe(2);
    expect(result.output).toContain('Usage: agent-teams');
  });

  it('refuses a port in use or a host not of this machine before creating the database', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    const fresh = join(workDir, 'never-created', 'teams.sqlite');
    // Spawned together: each process's start-up (tsx) is most of its time.
    const [inUse, badHost] = await Promise.all([
      runCli(['serve', '--port', String(port), '--database', fresh]),
      runCli(['serve', '--port', '0', '--host', '999.1.1.1', '--database', fresh]),
    ]).finally(() => holder.close());
    expect(inUse.code).toBe(1);
    expect(inUse.output).toContain(`127.0.0.1:${port} is already in use; choose another with --port`);
    expect(badHost.code).toBe(1);
    expect(badHost.output).toContain('--host 999.1.1.1 does not resolve to an address');
    expect(badHost.output).not.toContain('    at ');
    expect(existsSync(join(workDir, 'never-created'))).toBe(false);
  });

  it('names --database, without a stack, when the database cannot be opened or its directory made', async () => {
    const [postgres, proc] = await Promise.all([
      runCli(['serve', '--port', '0', '--database', 'postgres://agent:secret@127.0.0.1:1/x']),
      // Node's recursive mkdir never returned below /proc (every mkdir there says ENOENT).
      runCli(['serve', '--port', '0', '--database', '/proc/agent-teams-test/teams.sqlite']),
    ]);
    expect(postgres.code).toBe(1);
    expect(postgres.output).toContain('cannot open the database given by --database (or AGENT_TEAMS_DATABASE)');
    expect(postgres.output).not.toContain('secret');
    expect(proc.code).toBe(1);
    expect(proc.output).toContain(
      'Cannot create the directory /proc/agent-teams-test for the SQLite database (ENOENT)',
    );
    for (const { output } of [postgres, proc]) expect(output).not.toContain('    at ');
  });

  it('refuses a database a newer version migrated, naming its migration, without a stack', async () => {
    const newer = join(workDir, 'newer.sqlite');
    const db = new Database(newer);
    db.exec('create table kysely_migration (name varchar(255) primary key, timestamp varchar(255) not null)');
    db.prepare('insert into kysely_migration values (?, ?)').run('9001-from-a-newer-build', new Date().toISOString());
    db.close();
    const result = await runCli(['serve', '--port', '0', '--database', newer]);
    expect(result.code).toBe(1);
    expect(result.output).toContain('migrated by a newer version of Agent Teams');
    expect(result.output).toContain('9001-from-a-newer-build');
    expect(result.output).not.toContain('    at ');
  });

  it('refuses arguments after version', async () => {
    const result = await runCli(['version', '--json']);
    expect(result.code).toBe(2);
    expect(result.output).toContain('version takes no arguments');
  });

  it('prints the help for serve --help and -h, and exits 0 without serving', async () => {
    // Spawned together: each process's start-up (tsx) is most of its time.
    const results = await Promise.all(
      [
        ['serve', '--help'],
        ['serve', '--port', '0', '-h'],
        ['--', 'serve', '--help'],
      ].map(runCli),
    );
    for (const result of results) {
      expect(result.code).toBe(0);
      expect(result.output).toContain('Usage: agent-teams');
      expect(result.output).not.toContain('listening on');
    }
  });
});
