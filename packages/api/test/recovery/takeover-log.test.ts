import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { gql, type ServerProcess, startServer, stopServer } from '../../chaos/crash-server.js';
import { logLinesOf, metricOf } from '../support/server-signals.js';
import { eventually } from '../support/test-app.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-takeover-log-'));
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const server of servers) await stopServer(server, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** How long the scripted run sleeps: still running when its server is killed, short enough to finish after. */
const RUN_MS = 4_000;
const TAKEOVER = 'took over jobs';
const TAKEN_OVER = 'agent_teams_jobs_taken_over_total';

/** The job's phase and holder, read from the file beside the server (WAL: readers never block it). */
function jobRow(database: string, jobId: string): { phase: string; lease_server: string | null } | undefined {
  const db = new BetterSqlite3(database, { readonly: true });
  try {
    return db.prepare('SELECT phase, lease_server FROM jobs WHERE id = ?').get(jobId) as
      | { phase: string; lease_server: string | null }
      | undefined;
  } finally {
    db.close();
  }
}

async function start(database: string): Promise<ServerProcess> {
  const server = await startServer(database);
  servers.push(server);
  return server;
}

describe('a server started on a SQLite file a killed server left with a running job', () => {
  it('logs one takeover line naming the job and the killed server, and nothing on its other passes', async () => {
    const database = join(dir, 'takeover.sqlite');
    const first = await start(database);
    const created = await gql(
      first.url,
      `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id } } } }`,
      {
        input: {
          clientRequestId: 'takeover',
          name: 'Takeover',
          goal: 'Survive a kill',
          members: ['researcher', 'reviewer'].map((agentId, i) => ({ name: `M${i}`, agentId })),
        },
      },
    );
    const team = created?.data?.createTeam?.team as { id: string; members: { id: string }[] } | undefined;
    if (!team) throw new Error(`createTeam failed: ${JSON.stringify(created)}`);
    expect(await metricOf(first.url, TAKEN_OVER)).toBe(0);
    const sent = await gql(
      first.url,
      `mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }`,
      {
        input: {
          teamId: team.id,
          memberIds: [team.members[0]?.id],
          text: `!sleep ${RUN_MS}\n!reply taken over`,
          clientRequestId: 'takeover-1',
        },
      },
    );
    const jobId = sent?.data?.sendRequest?.jobs[0]?.id as string | undefined;
    if (!jobId) throw new Error(`sendRequest failed: ${JSON.stringify(sent)}`);
    const running = await eventually(
      async () => {
        const row = jobRow(database, jobId);
        return row?.phase === 'RUNNING' ? row : undefined;
      },
      'the job to run',
      20_000,
    );
    await stopServer(first, 'SIGKILL');
    // Still running when its server died, or the test would prove nothing.
    expect(jobRow(database, jobId)?.phase).toBe('RUNNING');
    // Its own start found nothing to take over.
    expect(logLinesOf(first.output(), TAKEOVER)).toEqual([]);

    const second = await start(database);
    await eventually(
      async () => (jobRow(database, jobId)?.phase === 'COMPLETED' ? true : undefined),
      'the job to finish',
      30_000,
    );
    // One line for the first claim; every pass after it (the job's steps, the safety net) took nothing.
    const lines = logLinesOf(second.output(), TAKEOVER);
    expect(lines.map(({ level, count, fromServers, jobIds }) => ({ level, count, fromServers, jobIds }))).toEqual([
      { level: 'info', count: 1, fromServers: [running.lease_server], jobIds: [jobId] },
    ]);
    expect(running.lease_server).toMatch(/^srv_/);
    expect(await metricOf(second.url, TAKEN_OVER)).toBe(1);
  }, 120_000);
});
