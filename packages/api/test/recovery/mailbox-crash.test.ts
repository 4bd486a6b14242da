import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { gql, type ServerProcess, startServer, stopServer } from '../../chaos/crash-server.js';
import { eventually } from '../support/test-app.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-mailbox-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KILLS = Number(process.env.AGENT_TEAMS_MAILBOX_KILLS ?? 4);
const SEND = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { message { id } } }`;

/** Sends one follow-up until the server answers it (a killed server answers null; the key makes retries safe). */
async function sendUntilAnswered(server: () => ServerProcess, input: Record<string, unknown>): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const answer = await gql(server().url, SEND, { input });
    if (answer?.data?.sendMessage) return true;
    if (answer?.errors) throw new Error(JSON.stringify(answer.errors));
  }
  return false;
}

describe('the mailbox under SIGKILL (real server process, SQLite file)', () => {
  it(`delivers every accepted follow-up into exactly one turn, once in the conversation, across ${KILLS} kills`, async () => {
    const database = join(dir, 'mailbox.sqlite');
    let server = await startServer(database);
    const created = await gql(
      server.url,
      `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id conversationId } } } }`,
      {
        input: {
          clientRequestId: 'mailbox-crash',
          name: 'Mailbox crash',
          goal: 'Survive kills',
          members: ['researcher', 'reviewer', 'writer'].map((agentId, i) => ({ name: `M${i}`, agentId })),
        },
      },
    );
    const team = created?.data?.createTeam.team as { id: string; members: { id: string; conversationId: string }[] };
    const accepted: { key: string; memberIds: string[] }[] = [];
    const unanswered: Record<string, unknown>[] = [];
    let next = 0;
    for (let kill = 0; kill <= KILLS; kill += 1) {
      const live = server;
      // Sends race the kill below: some land before it, some while the turns they started run.
      const sends = (async () => {
        for (let i = 0; i < 6; i += 1) {
          next += 1;
          const memberIds = [team.members[next % 3]?.id, team.members[(next + 1) % 3]?.id] as string[];
          const key = `crash-${next}`;
          const input = {
            teamId: team.id,
            memberIds,
            text: `!sleep 80\nnote ${next}`,
            delivery: 'FOLLOW_UP',
            clientRequestId: key,
          };
          if (await sendUntilAnswered(() => live, input)) accepted.push({ key, memberIds });
          else unanswered.push(input);
        }
      })();
      if (kill === KILLS) {
        await sends;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 150 + 100 * kill));
      await stopServer(live, 'SIGKILL');
      await sends;
      server = await startServer(database);
      // A send whose answer the kill swallowed may or may not be stored: its retry (same key) settles it.
      for (const input of unanswered.splice(0)) {
        const current = server;
        expect(await sendUntilAnswered(() => current, input)).toBe(true);
        accepted.push({ key: String(input.clientRequestId), memberIds: input.memberIds as string[] });
      }
    }
    // Every accepted message is delivered and every turn it started settles.
    const db = new BetterSqlite3(database, { readonly: true });
    try {
      await eventually(
        async () => {
          const undelivered = db
            .prepare('SELECT count(*) AS n FROM team_message_deliveries WHERE job_id IS NULL')
            .get() as { n: number };
          const unfinished = db.prepare('SELECT count(*) AS n FROM jobs WHERE unfinished = 1').get() as { n: number };
          return undelivered.n === 0 && unfinished.n === 0 ? true : undefined;
        },
        'every copy delivered and every turn finished',
        60_000,
      );
      expect(accepted.length).toBeGreaterThan(0);
      const failed = db.prepare("SELECT count(*) AS n FROM jobs WHERE phase <> 'COMPLETED'").get() as { n: number };
      expect(failed.n).toBe(0);
      const entry = db.prepare(
        "SELECT count(*) AS n FROM conversation_messages WHERE conversation_id = ? AND role = 'USER' AND text LIKE ?",
      );
      const stored = db.prepare('SELECT client_key FROM team_messages').all() as { client_key: string }[];
      // Only the accepted sends (and sends whose answer a kill swallowed) are stored, each once.
      expect(new Set(stored.map((row) => row.client_key)).size).toBe(stored.length);
      for (const { key, memberIds } of accepted) {
        expect(stored.map((row) => row.client_key)).toContain(key);
        for (const memberId of memberIds) {
          const conversation = team.members.find((m) => m.id === memberId)?.conversationId;
          const seen = entry.get(conversation, `Team message ${key} from person:%`) as { n: number };
          expect({ key, memberId, entries: seen.n }).toEqual({ key, memberId, entries: 1 });
        }
      }
    } finally {
      db.close();
      await stopServer(server, 'SIGTERM');
    }
  }, 300_000);
});
