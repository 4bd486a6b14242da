import type { Compilable, Kysely, RawBuilder } from 'kysely';
import { CompiledShapes } from '../../storage/compiled-statement.js';
import type { Database } from '../../storage/database-types.js';
import { LIMIT_SHAPES, literalLimit } from '../../storage/literal-limit.js';
import { toPersisted, toSeedMessage } from './openai-messages.js';
import type { PersistedMessage } from './openai-run-store.js';

/** Conversations whose recent history is kept, at most (least recently asked dropped first). */
export const HISTORY_CACHE_MAX_CONVERSATIONS = 1_000;
/**
 * UTF-16 code units kept over all conversations, at most: each message's text, tool call ids,
 * names and arguments, plus {@link HISTORY_CACHE_MESSAGE_CHARS} for the message itself.
 */
export const HISTORY_CACHE_MAX_CHARS = 32 * 1024 * 1024;
/** What one kept message counts beside its strings: its objects and slots (about 128 bytes). */
export const HISTORY_CACHE_MESSAGE_CHARS = 64;

interface Kept {
  readonly seq: number;
  readonly message: PersistedMessage;
}

/** What is kept of one conversation. */
interface Entry {
  /** Its newest `depth` model messages (all of them when `complete`), oldest first. */
  rows: Kept[];
  /** How many newest messages `rows` keeps: a call asking for more reads the history in full again. */
  depth: number;
  /** `rows` holds the conversation's whole model history (it was shorter than `depth`). */
  complete: boolean;
  /** Its oldest seeded entries (a forked member's copy of the lead's turns), oldest first. */
  seeded: Kept[];
  chars: number;
}

/** The history as the turn loop reads it: seeded entries, then the newest model messages. */
export interface ReadHistory {
  readonly seeded: readonly PersistedMessage[];
  readonly rows: readonly PersistedMessage[];
}

/** What `message` counts against {@link HISTORY_CACHE_MAX_CHARS}. */
export function messageChars(message: PersistedMessage): number {
  let chars = HISTORY_CACHE_MESSAGE_CHARS + (message.content?.length ?? 0);
  chars += (message.toolName?.length ?? 0) + (message.toolCallId?.length ?? 0) + message.runId.length;
  for (const call of message.toolCalls ?? []) chars += call.id.length + call.name.length + call.arguments.length;
  return chars;
}

const charsOf = (kept: readonly Kept[]): number => kept.reduce((sum, { message }) => sum + messageChars(message), 0);

/**
 * Keeps each conversation's recent `openai` history in memory and reads only what was written
 * since (`seq > last`), instead of up to `HISTORY_LIMIT` (400) rows and their JSON on every model
 * call (measured: 64 rows, about 0.5 ms of SQLite per call; docs/benchmarks.md, seventh pass).
 *
 * @remarks Only for a SQLite file, which one server holds alone (its file lock), on one
 * connection that runs one transaction at a time: rows become visible in `seq` order
 * (AUTOINCREMENT, never reused, rolled-back inserts never seen), and neither table's rows are
 * ever updated, so what was read once stays true and everything newer has a larger `seq`. On
 * PostgreSQL, sequence values are taken before commit, so a smaller `seq` can appear after a
 * larger one was read: there every call reads the history in full ({@link readHistory} with
 * `cache` null).
 */
export class HistoryCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxChars: number;
  #chars = 0;

  /** @param maxChars the budget ({@link HISTORY_CACHE_MAX_CHARS}; smaller in tests of its counting). */
  constructor(maxChars = HISTORY_CACHE_MAX_CHARS) {
    this.#maxChars = maxChars;
  }

  /** Reads what is new for `conversationId` and @returns its history up to `limit` entries each. */
  async read(db: Kysely<Database>, conversationId: string, limit: number): Promise<ReadHistory> {
    const known = this.#entries.get(conversationId);
    const entry = known !== undefined && (known.complete || known.depth >= limit) ? known : undefined;
    const fresh = await readModel(db, conversationId, entry?.rows.at(-1)?.seq, limit);
    // The seeded entries are the oldest: kept ones stay true whatever the model rows' depth.
    const seededHave = known?.seeded ?? [];
    const seededNew =
      seededHave.length >= limit
        ? []
        : await readSeeded(db, conversationId, seededHave.at(-1)?.seq, limit - seededHave.length);
    // `limit` new rows may stop short of what was kept: then they are all that is known.
    const kept = entry !== undefined && fresh.length < limit ? entry : undefined;
    const depth = Math.max(limit, kept?.depth ?? 0);
    const merged = [...(kept?.rows ?? []), ...fresh];
    const next: Entry = {
      rows: merged.slice(-depth),
      depth,
      complete: fresh.length < limit && (kept?.complete ?? true) && merged.length <= depth,
      seeded: [...seededHave, ...seededNew],
      chars: 0,
    };
    next.chars = charsOf(next.rows) + charsOf(next.seeded);
    this.#store(conversationId, next);
    return {
      seeded: next.seeded.slice(0, limit).map((k) => k.message),
      rows: next.rows.slice(-limit).map((k) => k.message),
    };
  }

  /** Conversations and characters kept (tests, diagnostics). */
  get size(): { conversations: number; chars: number } {
    return { conversations: this.#entries.size, chars: this.#chars };
  }

  #store(conversationId: string, entry: Entry): void {
    const old = this.#entries.get(conversationId);
    if (old !== undefined) {
      this.#chars -= old.chars;
      this.#entries.delete(conversationId);
    }
    // One conversation larger than the whole budget is not kept: it would evict every other.
    if (entry.chars > this.#maxChars) return;
    this.#entries.set(conversationId, entry);
    this.#chars += entry.chars;
    for (const [id, oldest] of this.#entries) {
      if (this.#entries.size <= HISTORY_CACHE_MAX_CONVERSATIONS && this.#chars <= this.#maxChars) break;
      this.#entries.delete(id);
      this.#chars -= oldest.chars;
    }
  }
}

/**
 * The read of a conversation's seeded entries (a forked member's copy of the lead's turns),
 * oldest first, after `afterSeq` when given; planned on `conversation_messages_seeded_idx`.
 */
export function seededRead(
  db: Kysely<Database>,
  conversationId: string,
  afterSeq: number | undefined,
  limit: number | RawBuilder<number>,
) {
  let query = db
    .selectFrom('conversation_messages')
    .select(['seq', 'role', 'text'])
    .where('conversation_id', '=', conversationId)
    .where('job_id', 'is', null);
  if (afterSeq !== undefined) query = query.where('seq', '>', afterSeq);
  return query.orderBy('seq').limit(limit);
}

/** A conversation's newest model messages after `afterSeq` when given, newest first. */
function modelRead(
  db: Kysely<Database>,
  conversationId: string,
  afterSeq: number | undefined,
  limit: number | RawBuilder<number>,
) {
  let query = db.selectFrom('openai_messages').selectAll().where('conversation_id', '=', conversationId);
  if (afterSeq !== undefined) query = query.where('seq', '>', afterSeq);
  return query.orderBy('seq', 'desc').limit(limit);
}

/**
 * A conversation read compiled once per shape (`storage/compiled-statement.ts`): from the start or
 * after a seq, and per limit, which is written into the statement (`storage/literal-limit.ts`).
 */
function compiledRead<R>(
  build: (
    db: Kysely<Database>,
    conversationId: string,
    afterSeq: number | undefined,
    limit: RawBuilder<number>,
  ) => Compilable<R>,
) {
  const shapes = new CompiledShapes<R>(2 * LIMIT_SHAPES);
  return async (db: Kysely<Database>, conversationId: string, afterSeq: number | undefined, limit: number) => {
    const key = `${afterSeq === undefined ? 'all' : 'after'}:${limit}`;
    const values = afterSeq === undefined ? [conversationId] : [conversationId, afterSeq];
    const read = (target: Kysely<Database>, [conversation, after]: readonly unknown[]) =>
      build(target, conversation as string, after as number | undefined, literalLimit(limit));
    return (await shapes.execute(db, key, read, values)).rows;
  };
}

const MODEL = compiledRead(modelRead);
const SEEDED = compiledRead(seededRead);

/**
 * The conversation's newest `limit` model messages after `afterSeq` (all when undefined), oldest
 * first. Read newest first, so a long gap still yields the newest `limit` (more is never shown).
 */
async function readModel(
  db: Kysely<Database>,
  conversationId: string,
  afterSeq: number | undefined,
  limit: number,
): Promise<Kept[]> {
  const rows = await MODEL(db, conversationId, afterSeq, limit);
  return rows.reverse().map((row) => ({ seq: Number(row.seq), message: toPersisted(row) }));
}

async function readSeeded(
  db: Kysely<Database>,
  conversationId: string,
  afterSeq: number | undefined,
  limit: number,
): Promise<Kept[]> {
  const rows = await SEEDED(db, conversationId, afterSeq, limit);
  return rows.map((row) => ({ seq: Number(row.seq), message: toSeedMessage(row) }));
}

/**
 * A conversation's history: through `cache` (SQLite), or read in full (PostgreSQL, `cache` null).
 */
export async function readHistory(
  db: Kysely<Database>,
  cache: HistoryCache | null,
  conversationId: string,
  limit: number,
): Promise<ReadHistory> {
  if (cache !== null) return cache.read(db, conversationId, limit);
  const rows = await readModel(db, conversationId, undefined, limit);
  const seeded = await readSeeded(db, conversationId, undefined, limit);
  return { seeded: seeded.map((k) => k.message), rows: rows.map((k) => k.message) };
}
