import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completionChunks } from '@agent-teams/testkit/msw';
import { monotonicMs } from '../live-clock.js';

/** A request whose last user message contains this is answered at once (the idle jobs). */
export const INSTANT_PREFIX = 'instant-answer:';
/** A request whose text holds this is answered at once with a question to the person (`ask_clarification`). */
export const ASK_PREFIX = 'ask-person:';

/**
 * The text of a streamed delta: `<stream>.<index>@<send time>` (send time in monotonic ms, three
 * decimals). It is unique per stream and index, so a subscriber matches a delta to the chunk that
 * carried it and knows when the provider sent it from the text alone.
 */
export function deltaText(stream: number, index: number, sentAt: number): string {
  return `${stream}.${index}@${sentAt.toFixed(3)} `;
}

/** Reads {@link deltaText} back: stream, index and send time, or null for any other text. */
export function parseDelta(text: string): { stream: number; index: number; sentAt: number } | null {
  const match = /^(\d+)\.(\d+)@(\d+\.\d+) $/.exec(text);
  if (!match) return null;
  return { stream: Number(match[1]), index: Number(match[2]), sentAt: Number(match[3]) };
}

/** How {@link StreamingChatProvider.release} streams the held answers. */
export interface StreamPlan {
  /** Content deltas per answer. */
  readonly chunks: number;
  /** Milliseconds between two deltas of one answer (20 ms: 50 tokens/s). */
  readonly intervalMs: number;
}

/** A fake OpenAI-compatible provider on loopback whose streamed answers wait for a release. */
export interface StreamingChatProvider {
  /** `<origin>/v1`, an agent's `baseUrl`. */
  readonly baseUrl: string;
  /** Streamed requests holding their answer until {@link release}. */
  readonly held: number;
  /** Streams every held answer; resolves when the last one ended. */
  release(plan: StreamPlan): Promise<{ sent: number }>;
  close(): Promise<void>;
}

interface HeldStream {
  readonly res: ServerResponse;
  readonly model: string;
  readonly includeUsage: boolean;
}

const MODEL = 'bench-stream';

/**
 * Starts a provider that answers `POST /v1/chat/completions` in the real wire format (testkit's
 * `completionChunks`) over real HTTP SSE on 127.0.0.1. A streamed request gets its headers and
 * the role chunk at once, then waits: {@link StreamingChatProvider.release} streams every held
 * answer, one content delta per `intervalMs` on a drift-free schedule, each delta's text
 * stamped with its send time just before its `write` ({@link deltaText}). The answers start
 * staggered over one interval, as independent model calls would, rather than in lockstep.
 * Requests whose last user message contains {@link INSTANT_PREFIX} are answered at once (the
 * runtime wraps the request's text in a JSON turn message); those with {@link ASK_PREFIX} at once
 * with an `ask_clarification` call.
 *
 * @remarks The provider is the one faked part of the token-relay benchmark; it runs in the
 * benchmark's own process, apart from the server, so its send times are not delayed by the
 * server's event loop (a stall there shows up as latency, as it would with a remote provider).
 */
export async function startStreamingChatProvider(): Promise<StreamingChatProvider> {
  const held: HeldStream[] = [];
  const server = createServer({ noDelay: true }, (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString()) as {
        model?: string;
        stream?: boolean;
        stream_options?: { include_usage?: boolean };
        messages: { role: string; content?: unknown }[];
      };
      const user = body.messages.filter((message) => message.role === 'user').at(-1)?.content;
      const model = body.model ?? MODEL;
      const includeUsage = body.stream_options?.include_usage === true;
      if (!body.stream) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"stream only"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const [role = '[DONE]', ...rest] = completionChunks(model, { content: 'ok', usage: usage(1) }, includeUsage);
      res.write(sse(role));
      if (typeof user === 'string' && user.includes(ASK_PREFIX)) {
        // A question to the person: the job then waits for an answer, unfinished and quiet.
        const ask = { id: 'call_ask', name: 'ask_clarification', arguments: '{"question":"Which one?"}' };
        const asked = completionChunks(model, { toolCalls: [ask], usage: usage(1) }, includeUsage).slice(1);
        res.end(asked.map(sse).join(''));
        return;
      }
      if (typeof user === 'string' && user.includes(INSTANT_PREFIX)) {
        // The instant answer: the remaining chunks of a one-word reply, at once.
        res.end(rest.map(sse).join(''));
        return;
      }
      held.push({ res, model, includeUsage });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${origin}/v1`,
    get held() {
      return held.length;
    },
    async release(plan) {
      const streams = held.splice(0);
      const started = monotonicMs();
      const counts = await Promise.all(
        streams.map((stream, n) => streamAnswer(stream, n, started + (n * plan.intervalMs) / streams.length, plan)),
      );
      return { sent: counts.reduce((total, count) => total + count, 0) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Streams one held answer from `startAt` (monotonic ms); resolves with the deltas written. */
async function streamAnswer(stream: HeldStream, n: number, startAt: number, plan: StreamPlan): Promise<number> {
  // The chunk objects of the whole answer, built up front: only the stamped text changes per send.
  const chunks = completionChunks(
    stream.model,
    { deltas: Array.from({ length: plan.chunks }, () => ''), usage: usage(plan.chunks) },
    stream.includeUsage,
  ).slice(1);
  for (let i = 0; i < plan.chunks; i += 1) {
    const wait = startAt + i * plan.intervalMs - monotonicMs();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const chunk = chunks[i] as { choices: { delta: { content: string } }[] };
    (chunk.choices[0] as { delta: { content: string } }).delta.content = deltaText(n, i, monotonicMs());
    stream.res.write(sse(chunk));
  }
  await new Promise<void>((resolve) => stream.res.end(chunks.slice(plan.chunks).map(sse).join(''), resolve));
  return plan.chunks;
}

function sse(data: object | string): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

function usage(tokens: number) {
  return { prompt_tokens: 100, completion_tokens: tokens };
}
