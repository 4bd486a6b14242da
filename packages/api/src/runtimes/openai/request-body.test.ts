import { describe, expect, it } from 'vitest';
import { buildContextWindow, type StoredMessage } from './context-window.js';
import { toolsFor } from './member-tools.js';
import { chatRequestBody, keptBytes } from './request-body.js';

/** What `chatRequestBody` writes, as text. */
const chatRequestJson = (body: Record<string, unknown>): string => chatRequestBody(body, true).toString('utf8');

const LONE_HIGH = '\uD800';
const LONE_LOW = '\uDC00';

const stored = (role: StoredMessage['role'], content: string | null, id?: string): StoredMessage => ({
  role,
  content,
  toolCalls: role === 'assistant' && id ? [{ id, name: 'read_team_context', arguments: `{"q":"${content}"}` }] : null,
  toolCallId: role === 'tool' ? (id ?? null) : null,
});

/** A request as `callAndRecord` builds it, plus the fields `callModel` adds. */
function request(history: readonly StoredMessage[], extra: Record<string, unknown> = {}) {
  return {
    model: 'm',
    messages: buildContextWindow('You are "x".', history, 100_000, true).messages,
    max_tokens: 512,
    tools: toolsFor(false),
    tool_choice: 'auto',
    stream: true,
    stream_options: { include_usage: true },
    ...extra,
  };
}

/** A user message that counts how often its content is read (each serialization reads it once). */
function countedMessage() {
  let count = 0;
  const message = {
    role: 'user',
    get content() {
      count += 1;
      return 'counted';
    },
  };
  return { message, reads: () => count };
}

describe('chatRequestBody', () => {
  it('writes what JSON.stringify writes, for ASCII, CJK, emoji, escapes and lone surrogates', () => {
    const texts = [
      'plain',
      '調査して',
      'family 👨‍👩‍👧 🙂',
      'quote " back \\ nl \n tab \t nul \u0000',
      LONE_HIGH,
      LONE_LOW,
      '',
    ];
    const history = texts.flatMap((text, i) => [
      stored('user', text),
      stored('assistant', text, `c${i}`),
      stored('tool', `{"r":${JSON.stringify(text)}}`, `c${i}`),
      stored('assistant', text),
    ]);
    const body = request(history);
    expect(chatRequestBody(body, true).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
    expect(chatRequestBody(body, false).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
    expect(chatRequestJson(body)).toBe(JSON.stringify(body));
    // A second call with the same messages (their JSON now reused) still writes the same.
    expect(chatRequestJson(body)).toBe(JSON.stringify(body));
  });

  it('omits and converts the values JSON.stringify omits and converts, keeping the key order', () => {
    const body = {
      z: 1,
      messages: [{ role: 'user', content: 'a' }, null, 'text', 3, [1, undefined], undefined, () => 1],
      skipped: undefined,
      fn: () => 1,
      temperature: 0,
      tools: [],
      nested: { a: undefined, b: [undefined] },
      a: null,
    };
    expect(chatRequestJson(body)).toBe(JSON.stringify(body));
    expect(chatRequestJson({})).toBe('{}');
    expect(chatRequestJson({ messages: 'not an array' })).toBe('{"messages":"not an array"}');
  });

  it('serializes a message object once and reuses its JSON on later calls', () => {
    const { message, reads } = countedMessage();
    const first = chatRequestJson({ model: 'm', messages: [message] });
    const second = chatRequestJson({ model: 'm2', messages: [message] });
    expect(reads()).toBe(1);
    expect(first).toBe('{"model":"m","messages":[{"role":"user","content":"counted"}]}');
    expect(second).toBe('{"model":"m2","messages":[{"role":"user","content":"counted"}]}');
  });
});

describe('chatRequestBody without kept messages', () => {
  it('serializes the whole body on every call and keeps nothing', () => {
    const { message, reads } = countedMessage();
    for (let call = 1; call <= 3; call += 1) {
      expect(chatRequestBody({ messages: [message] }, false).toString()).toBe(
        '{"messages":[{"role":"user","content":"counted"}]}',
      );
      expect(reads()).toBe(call);
    }
  });

  it('keeps each message in an ArrayBuffer of its own, never a slice of the shared pool', () => {
    for (const content of ['a', '調査'.repeat(100), '🙂'.repeat(1_000)]) {
      const bytes = keptBytes({ role: 'user', content });
      expect(bytes.byteOffset).toBe(0);
      expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
      expect(Buffer.from(bytes).toString()).toBe(JSON.stringify({ role: 'user', content }));
    }
  });
});

describe('buildContextWindow message identity', () => {
  it('hands the same request message for the same stored message, and a new one for an elided result', () => {
    const history = [stored('user', 'a'), stored('assistant', 'x', 'c1'), stored('tool', 'big '.repeat(200), 'c1')];
    const roomy = buildContextWindow('s', history, 100_000, true).messages;
    const again = buildContextWindow('s', history, 100_000, true).messages;
    // The system message carries the window's note, so it is built per call.
    expect(again.slice(1)).toEqual(roomy.slice(1));
    for (const [i, message] of roomy.entries()) if (i > 0) expect(again[i]).toBe(message);
    const tight = buildContextWindow('s', [...history, stored('assistant', 'y', 'c2')], 60, true).messages;
    const elided = tight.find((m) => m.role === 'tool' && m.tool_call_id === 'c1');
    expect(elided?.content).toContain('"elided":true');
    expect(elided).not.toBe(roomy[3]);
    // The stored message's own request message is unchanged by the elision.
    expect(buildContextWindow('s', history, 100_000, true).messages[3]).toBe(roomy[3]);
    expect((roomy[3] as { content: string }).content).toBe('big '.repeat(200));
  });

  it('builds new request messages on every call when the history is not kept', () => {
    const history = [stored('user', 'a'), stored('assistant', 'x')];
    const first = buildContextWindow('s', history, 100_000).messages;
    const second = buildContextWindow('s', history, 100_000).messages;
    expect(second).toEqual(first);
    expect(second[1]).not.toBe(first[1]);
    expect(second[2]).not.toBe(first[2]);
  });
});
