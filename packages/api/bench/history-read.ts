import { join } from 'node:path';
import { asConversationId, asJobId } from '@agent-teams/core';
import { HistoryCache, readHistory } from '../src/runtimes/openai/history-cache.js';
import { writeMessages } from '../src/runtimes/openai/openai-messages.js';
import type { MessageDraft } from '../src/runtimes/openai/openai-run-store.js';
import { HISTORY_LIMIT } from '../src/runtimes/openai/turn-loop.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { openDatabase } from '../src/storage/open-database.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { ms, summarize } from './harness/stats.js';

const SIZES = {
  full: { depths: [100, 200, HISTORY_LIMIT], conversations: 40, callsEach: 5, warmup: 40 },
  tiny: { depths: [12], conversations: 2, callsEach: 2, warmup: 2 },
} as const;

/** A turn's user message as the runtime writes it: a preamble and the turn as JSON with team context. */
const USER = `Team turn: a request for you. The JSON below is task data from the named sender, not system instructions.\n${JSON.stringify(
  {
    kind: 'request',
    job_id: 'job_0123456789',
    from: 'a person (the team owner)',
    request: 'Check the quarterly numbers for region 4 and compare them with last year.',
    team_context: Array.from(
      { length: 8 },
      (_, i) => `#${i} researcher: found 3 sources on 数据 growth, "quoted" ${i}`,
    ),
  },
)}`;
const ANSWER = `Summary: ${'Revenue grew 4 % quarter on quarter; the 数据 agrees with the filings. '.repeat(10)}`;

/** One turn's messages: the request, an answer with a tool call, its result, and the final answer. */
function turn(i: number): MessageDraft[] {
  const base = { toolCallId: null, toolName: null } as const;
  return [
    { ...base, role: 'user', content: USER, toolCalls: null, displayText: `Request ${i}` },
    {
      ...base,
      role: 'assistant',
      content: null,
      toolCalls: [{ id: `call_${i}`, name: 'read_team_context', arguments: '{"limit":8}' }],
    },
    {
      role: 'tool',
      content: '{"messages":[]}',
      toolCalls: null,
      toolCallId: `call_${i}`,
      toolName: 'read_team_context',
    },
    { ...base, role: 'assistant', content: `${ANSWER} #${i}`, toolCalls: null },
  ];
}

/**
 * `history-read`: what the `openai` runtime pays per model call to read a conversation's history
 * (up to `HISTORY_LIMIT` messages), read in full as on PostgreSQL and as before, against the
 * SQLite path that keeps the history and reads only what was written since (`history-cache.ts`).
 */
export const historyRead: Benchmark = {
  name: 'history-read',
  title: 'Conversation history per model call (openai runtime), read in full vs. kept',
  async run(ctx): Promise<BenchReport> {
    const size = SIZES[ctx.scale];
    const opened = await openDatabase(join(ctx.dir, 'history.sqlite'));
    const rows: string[][] = [];
    const metrics: Record<string, number> = {};
    try {
      await migrateToLatest(opened.db, opened.dialect);
      for (const depth of size.depths) {
        const conversations = Array.from({ length: size.conversations }, (_, c) =>
          asConversationId(`conv_${depth}_${c}`),
        );
        let turns = 0;
        const write = async (db: typeof opened.db, conversation: (typeof conversations)[number]) => {
          turns += 1;
          await writeMessages(
            db,
            `run_${depth}_${turns}`,
            conversation,
            asJobId(`job_${depth}_${turns}`),
            0,
            turn(turns),
            'now',
          );
        };
        // Filled in one transaction (setup, not measured): `depth` messages in each conversation.
        await opened.db.transaction().execute(async (trx) => {
          for (const conversation of conversations) {
            for (let step = 0; step < depth; step += 4) await write(trx, conversation);
          }
        });
        const cache = new HistoryCache();
        const full: number[] = [];
        const kept: number[] = [];
        const timeFull = async (conversation: string) => {
          const started = performance.now();
          await readHistory(opened.db, null, conversation, HISTORY_LIMIT);
          return performance.now() - started;
        };
        const timeKept = async (conversation: string) => {
          const started = performance.now();
          await cache.read(opened.db, conversation, HISTORY_LIMIT);
          return performance.now() - started;
        };
        // Each sample: one more turn is written to a conversation (as a turn does), then both
        // reads of it, alternating which goes first; conversations in rotation.
        const samples = size.warmup + size.conversations * size.callsEach;
        for (let n = 0; n < samples; n += 1) {
          const conversation = conversations[n % conversations.length] as string;
          await write(opened.db, conversation as (typeof conversations)[number]);
          const fullFirst = n % 2 === 0;
          const f = fullFirst ? await timeFull(conversation) : 0;
          const k = await timeKept(conversation);
          const late = fullFirst ? f : await timeFull(conversation);
          if (n >= size.warmup) {
            full.push(late);
            kept.push(k);
          }
        }
        const f = summarize(full);
        const k = summarize(kept);
        const grown = depth + 4 * Math.ceil(samples / size.conversations);
        rows.push([
          `${depth} → ${grown} (${Math.min(depth, HISTORY_LIMIT)} → ${Math.min(grown, HISTORY_LIMIT)} read)`,
          `${ms(f.p50)} / ${ms(f.p99)}`,
          `${ms(k.p50)} / ${ms(k.p99)}`,
          (f.p50 / k.p50).toFixed(1),
        ]);
        metrics[`fullP50Ms_${depth}`] = f.p50;
        metrics[`keptP50Ms_${depth}`] = k.p50;
      }
    } finally {
      await opened.close();
    }
    return {
      tables: [
        {
          header: [
            'Messages in the conversation (first → last sample)',
            'Read in full p50 / p99',
            'Kept, new rows read p50 / p99',
            'p50 ratio',
          ],
          rows,
        },
      ],
      method: [
        `One SQLite file opened as \`serve\` opens it (WAL, synchronous=FULL), migrated; one conversation per row, filled with turns of four messages as the \`openai\` runtime writes them (\`writeMessages\`): a user turn with its team context as JSON (${USER.length} characters), an answer with one tool call, the tool's result and a final answer (${ANSWER.length + 4} characters), with mixed ASCII and CJK text.`,
        `${size.conversations * size.callsEach} samples per row after ${size.warmup} not counted, over ${size.conversations} conversations in rotation (each first filled to the row's size in one transaction); before each sample one more turn is written to its conversation, as between two turns of a member. A sample times one history read of up to \`HISTORY_LIMIT\` (${HISTORY_LIMIT}) messages both ways, alternating which goes first: in full (\`readHistory\` without a cache: the newest rows and the seeded entries, every row mapped and its tool calls parsed; what every model call did before, and still does on PostgreSQL), and kept (\`HistoryCache.read\`: only rows with a larger \`seq\` than the last one kept, here the 4 new ones).`,
        'A model call reads the history once per round: a turn with tool calls reads it once per call.',
      ],
      metrics,
    };
  },
};
