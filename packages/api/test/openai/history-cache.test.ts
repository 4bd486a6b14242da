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
  HISTORY_CACHE_MESSAGE_CHARS,
  HistoryCache,
  messageChars,
  readHistory,
} from '../../src/runtimes/openai/history-cache.js';
import { writeMessages } from '../../src/runtimes/openai/openai-messages.js';
import type { MessageDraft, PersistedMessage } from '../../src/runtimes/openai/openai-run-store.js';
import { appendConversation } from '../../src/storage/conversations.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-history-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Counts the rows each `openai_messages` read returned. */
class RowCounter implements KyselyPlugin {
  readonly reads: number[] = [];
  readonly #model = new WeakSet<object>();
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (JSON.stringify(args.node).includes('"openai_messages"')) this.#model.add(args.queryId);
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.#model.has(args.queryId)) this.reads.push(args.result.rows.length);
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
    // Two conversations with a message each: a kept one then reads only what is new, a dropped one all of it.
    await append('conv_0', 1);
    await append('conv_1', 1);
    for (let i = 0; i < HISTORY_CACHE_MAX_CONVERSATIONS - 1; i += 1) await cache.read(opened.db, `conv_${i}`, 4);
    expect(cache.size.conversations).toBe(HISTORY_CACHE_MAX_CONVERSATIONS - 1);
    await cache.read(opened.db, `conv_${HISTORY_CACHE_MAX_CONVERSATIONS - 1}`, 4);
    expect(cache.size.conversations).toBe(HISTORY_CACHE_MAX_CONVERSATIONS);
    await cache.read(opened.db, 'conv_0', 4);
    await cache.read(opened.db, 'conv_new', 4);
    expect(cache.size.conversations).toBe(HISTORY_CACHE_MAX_CONVERSATIONS);
    // conv_0 was read again, so conv_1 was the oldest: dropped, it is read in full (2 rows).
    const counter = new RowCounter();
    await append('conv_1', 1);
    await append('conv_0', 1);
    await cache.read(opened.db.withPlugin(counter), 'conv_0', 4);
    await cache.read(opened.db.withPlugin(counter), 'conv_1', 4);
    expect(counter.reads).toEqual([1, 2]);
    expect(cache.size.conversations).toBe(HISTORY_CACHE_MAX_CONVERSATIONS);
  });

  /** Appends one message (no tool calls) whose count against the budget is exactly `total`. */
  async function sized(conversation: string, total: number, unit: string): Promise<void> {
    step = 1;
    const runId = `run_${conversation}_1`;
    const units = total - HISTORY_CACHE_MESSAGE_CHARS - runId.length;
    const fill = unit.repeat(Math.floor(units / unit.length)) + 'a'.repeat(units % unit.length);
    await append(conversation, 1, () => fill);
  }

  async function budgetAtItsEdges(cache: HistoryCache, max: number, unit: string): Promise<void> {
    await sized('conv_under', max - 1, unit);
    await sized('conv_at', max, unit);
    await sized('conv_over', max + 1, unit);
    await cache.read(opened.db, 'conv_under', 4);
    expect(cache.size).toEqual({ conversations: 1, chars: max - 1 });
    // Both together pass the budget: the least recently read goes.
    await cache.read(opened.db, 'conv_at', 4);
    expect(cache.size).toEqual({ conversations: 1, chars: max });
    // Larger than the whole budget: not kept, and nothing else is dropped for it.
    const over = await cache.read(opened.db, 'conv_over', 4);
    expect(cache.size).toEqual({ conversations: 1, chars: max });
    expect(messageChars(over.rows[0] as PersistedMessage)).toBe(max + 1);
  }

  it(`keeps ${HISTORY_CACHE_MAX_CHARS} - 1 and ${HISTORY_CACHE_MAX_CHARS} code units, not one more (ASCII)`, async () => {
    await budgetAtItsEdges(new HistoryCache(), HISTORY_CACHE_MAX_CHARS, 'a');
  });

  // The same counting with a small budget (the units are the same at any size). Lone surrogates
  // never reach the table (the operation guard refuses them; SQLite would store each as three
  // U+FFFD), so what is counted is what is read back.
  it.each([
    ['CJK', '漢'],
    ['emoji (two code units each)', '😀'],
    ['mixed', 'é漢😀'],
  ])('counts code units at the edges of a 4,096-unit budget (%s)', async (_name, unit) => {
    await budgetAtItsEdges(new HistoryCache(4_096), 4_096, unit);
  });

  it('counts tool call ids, names and arguments, and the run id, besides the text', () => {
    const message: PersistedMessage = {
      role: 'assistant',
      content: 'abc',
      toolCalls: [{ id: 'call_1', name: 'send_member', arguments: '{"a":1}' }],
      toolCallId: null,
      toolName: null,
      step: 0,
      runId: 'run_1',
    };
    expect(messageChars(message)).toBe(HISTORY_CACHE_MESSAGE_CHARS + 3 + 6 + 11 + 7 + 5);
    expect(messageChars({ ...message, toolCalls: null, role: 'tool', toolCallId: 'call_1', toolName: 'x' })).toBe(
      HISTORY_CACHE_MESSAGE_CHARS + 3 + 6 + 1 + 5,
    );
  });
});
