import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asConversationId, asJobId } from '@agent-teams/core';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  HISTORY_CACHE_MAX_CHARS,
  HISTORY_CACHE_MAX_CONVERSATIONS,
  HistoryCache,
  readHistory,
} from '../../src/runtimes/openai/history-cache.js';
import { writeMessages } from '../../src/runtimes/openai/openai-messages.js';
import type { MessageDraft } from '../../src/runtimes/openai/openai-run-store.js';
import { appendConversation } from '../../src/storage/conversations.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-history-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Counts the rows each `openai_messages` read returned. */
class RowCounter implements KyselyPlugin {
  readonly reads: number[] = [];
  readonly #queries = new WeakMap<object, string>();
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const table = JSON.stringify(args.node).includes('"openai_messages"') ? 'openai' : 'other';
    this.#queries.set(args.queryId, table);
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.#queries.get(args.queryId) === 'openai' && args.result.rows.length >= 0 && args.queryId) {
      this.reads.push(args.result.rows.length);
    }
    return args.result;
  }
}

let opened: OpenedDatabase;
let file = 0;
let step = 0;
beforeEach(async () => {
  file += 1;
  step = 0;
  opened = await openDatabase(join(dir, `history-${file}.sqlite`));
  await migrateToLatest(opened.db, opened.dialect);
});
afterEach(async () => opened.close());

const NOW = '2026-12-03T00:00:00.000Z';
const draft = (content: string): MessageDraft => ({
  role: step % 2 === 0 ? 'user' : 'assistant',
  content,
  toolCalls: step % 3 === 0 ? [{ id: `call_${step}`, name: 'read_team_context', arguments: '{}' }] : null,
  toolCallId: null,
  toolName: null,
});
async function append(conversation: string, count: number, text = (i: number) => `message ${step + i}`): Promise<void> {
  const messages = Array.from({ length: count }, (_, i) => draft(text(i)));
  await writeMessages(
    opened.db,
    `run_${conversation}_${step}`,
    asConversationId(conversation),
    asJobId('job_1'),
    0,
    messages,
    NOW,
  );
  step += count;
}
async function seed(conversation: string, count: number): Promise<void> {
  const messages = Array.from({ length: count }, (_, i) => ({
    role: i % 2 === 0 ? ('USER' as const) : ('ASSISTANT' as const),
    text: `seeded ${step + i}`,
    toolName: null,
    jobId: null,
  }));
  await appendConversation(opened.db, asConversationId(conversation), messages, NOW);
  step += count;
}

describe('HistoryCache: a conversation read once is then read from its last seq', () => {
  it('answers exactly what a full read answers, over random writes and limits (seeded runs)', async () => {
    const cache = new HistoryCache();
    let seed32 = 20261203;
    const random = (n: number) => {
      seed32 = (seed32 * 1103515245 + 12345) % 2 ** 31;
      return seed32 % n;
    };
    for (let round = 0; round < 300; round += 1) {
      const conversation = `conv_${random(3)}`;
      const action = random(4);
      if (action === 0) await append(conversation, random(14));
      else if (action === 1) await seed(conversation, random(4));
      const limit = [3, 5, 12][random(3)] as number;
      const cached = await cache.read(opened.db, conversation, limit);
      const full = await readHistory(opened.db, null, conversation, limit);
      expect(cached, `round ${round}`).toEqual(full);
    }
  });

  it('reads only the rows written since (counted), and the newest `limit` after a longer gap', async () => {
    const counter = new RowCounter();
    const db = opened.db.withPlugin(counter);
    const cache = new HistoryCache();
    await append('conv_a', 6);
    expect((await cache.read(db, 'conv_a', 10)).rows).toHaveLength(6);
    await append('conv_a', 2);
    expect((await cache.read(db, 'conv_a', 10)).rows.map((m) => m.content)).toEqual(
      Array.from({ length: 8 }, (_, i) => `message ${i}`),
    );
    expect((await cache.read(db, 'conv_a', 10)).rows).toHaveLength(8);
    // 25 new rows against a limit of 10: the gap is never stitched to the old rows.
    await append('conv_a', 25);
    const after = await cache.read(db, 'conv_a', 10);
    expect(after.rows.map((m) => m.content)).toEqual(Array.from({ length: 10 }, (_, i) => `message ${23 + i}`));
    expect(counter.reads).toEqual([6, 2, 0, 10]);
    expect(after).toEqual(await readHistory(opened.db, null, 'conv_a', 10));
  });

  it('reads in full again when asked for more than it keeps, and not when it holds everything', async () => {
    const counter = new RowCounter();
    const db = opened.db.withPlugin(counter);
    const cache = new HistoryCache();
    await append('conv_b', 12);
    await cache.read(db, 'conv_b', 5);
    expect((await cache.read(db, 'conv_b', 8)).rows).toHaveLength(8);
    await append('conv_c', 3);
    await cache.read(db, 'conv_c', 5);
    expect((await cache.read(db, 'conv_c', 50)).rows).toHaveLength(3);
    expect(counter.reads).toEqual([5, 8, 3, 0]);
  });

  it(`keeps at most ${HISTORY_CACHE_MAX_CONVERSATIONS} conversations, the least recently read dropped first`, async () => {
    const cache = new HistoryCache();
    for (let i = 0; i < HISTORY_CACHE_MAX_CONVERSATIONS - 1; i += 1) await cache.read(opened.db, `conv_${i}`, 4);
    expect(cache.size.conversations).toBe(HISTORY_CACHE_MAX_CONVERSATIONS - 1);
    await cache.read(opened.db, `conv_${HISTORY_CACHE_MAX_CONVERSATIONS - 1}`, 4);
    expect(cache.size.conversations).toBe(HISTORY_CACHE_MAX_CONVERSATIONS);
    await cache.read(opened.db, 'conv_0', 4);
    await cache.read(opened.db, 'conv_new', 4);
    expect(cache.size.conversations).toBe(HISTORY_CACHE_MAX_CONVERSATIONS);
    // conv_0 was read again, so conv_1 was the oldest: it is read in full (one more row counted).
    const counter = new RowCounter();
    await append('conv_1', 1);
    await append('conv_0', 1);
    await cache.read(opened.db.withPlugin(counter), 'conv_0', 4);
    await cache.read(opened.db.withPlugin(counter), 'conv_1', 4);
    expect(counter.reads).toEqual([1, 1]);
    expect(cache.size.conversations).toBe(HISTORY_CACHE_MAX_CONVERSATIONS);
  });

  // Lone surrogates never reach the table (the operation guard refuses them, and SQLite would
  // store each as three U+FFFD): the budget counts the code units read back.
  it.each([
    ['ASCII', 'a'],
    ['CJK', '漢'],
    ['emoji (two code units)', '😀'],
  ])(
    `keeps conversations of ${HISTORY_CACHE_MAX_CHARS} - 1 and ${HISTORY_CACHE_MAX_CHARS} code units, not one more (%s)`,
    async (_name, unit) => {
      const cache = new HistoryCache();
      const fill = (units: number) => unit.repeat(Math.floor(units / unit.length)) + 'a'.repeat(units % unit.length);
      // Step 0 is a user draft with one tool call whose arguments (`{}`) count 2 units.
      step = 0;
      await append('conv_big', 1, () => fill(HISTORY_CACHE_MAX_CHARS - 3));
      await cache.read(opened.db, 'conv_big', 4);
      expect(cache.size).toEqual({ conversations: 1, chars: HISTORY_CACHE_MAX_CHARS - 1 });
      await append('conv_big', 1, () => 'x');
      await cache.read(opened.db, 'conv_big', 4);
      expect(cache.size).toEqual({ conversations: 1, chars: HISTORY_CACHE_MAX_CHARS });
      await append('conv_big', 1, () => 'y');
      const read = await cache.read(opened.db, 'conv_big', 4);
      expect(cache.size).toEqual({ conversations: 0, chars: 0 });
      expect(read.rows.map((m) => m.content?.length)).toEqual([HISTORY_CACHE_MAX_CHARS - 3, 1, 1]);
    },
  );
});
