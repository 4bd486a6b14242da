import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../test/graphql/graphql-stack.js';
import { send } from '../../test/http/http-client.js';
import { useLiveStack } from '../../test/live/live-stack.js';
import { MAX_REQUEST_ERROR_MESSAGE_CHARS, withinMessageLimit } from './mask-error.js';

const live = useLiveStack();

const SEND = 'mutation($i: SendRequestInput!) { sendRequest(input: $i) { jobs { id } } }';

/** An input of `chars` characters of text and `unknown` fields the input type does not have. */
function quotedInput(chars: number, unknown: number, unit = 'x'): Record<string, unknown> {
  const input: Record<string, unknown> = { text: unit.repeat(chars / unit.length) };
  for (let i = 0; i < unknown; i++) input[`u${i}`] = 1;
  return input;
}

function messagesOf(payload: unknown): string[] {
  return ((payload as { errors?: { message: string }[] }).errors ?? []).map((error) => error.message);
}

function expectShortMessages(messages: string[]): void {
  // graphql-js stops at 50 errors of variables (and one saying so).
  expect(messages.length).toBeGreaterThan(40);
  for (const message of messages) {
    expect(message.length).toBeLessThanOrEqual(MAX_REQUEST_ERROR_MESSAGE_CHARS);
    // No half of a surrogate pair where the middle was cut.
    expect(message).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  }
}

describe("GraphQL's own errors quoting a variable", () => {
  it('answer a 300 KB variable with unknown fields in a few KB, without a token, naming the variable and the reason', async () => {
    const body = JSON.stringify({ query: SEND, variables: { i: quotedInput(300_000, 60) } });
    const answer = await send(`${live.base}/graphql`, { headers: { 'content-type': 'application/json' }, body });
    expect(answer.status).toBe(400);
    // Each of the 51 errors quoted the whole value: 15 MB came back for 300 KB sent.
    expect(answer.body.length).toBeLessThan(51 * (MAX_REQUEST_ERROR_MESSAGE_CHARS + 100));
    const messages = messagesOf(answer.json());
    expectShortMessages(messages);
    expect(messages[0]).toMatch(
      /^Variable "\$i" got invalid value \{ text: "x+ … .*u59: 1 \}; Field "teamId" of required type "ID!" was not provided\.$/,
    );
    expect(messages.some((message) => message.endsWith('Field "u0" is not defined by type "SendRequestInput".'))).toBe(
      true,
    );
  });

  it('are cut the same on a WebSocket subscribe, at pairs of surrogates too', async () => {
    const raw = await live.pool.raw();
    await raw.init(TOKENS.alice);
    // Within the socket's 64 KiB message limit: 12,000 emoji, 48,000 UTF-8 bytes.
    const variables = { i: quotedInput(24_000, 60, '😀') };
    raw.send({ type: 'subscribe', id: 'quoted', payload: { query: SEND, variables } });
    const frame = await raw.waitFor((f) => f.id === 'quoted');
    expect(frame.type).toBe('next');
    expectShortMessages(messagesOf(frame.payload));
    raw.socket.close();
  });

  it('keep a message within the limit whole', async () => {
    const answer = await live.stack.gql(SEND, { i: quotedInput(100, 1) }, null);
    const messages = answer.errors.map((error) => error.message);
    expect(messages).toContain(
      `Variable "$i" got invalid value { text: "${'x'.repeat(100)}", u0: 1 }; Field "u0" is not defined by type "SendRequestInput".`,
    );
  });
});

describe('withinMessageLimit at its limit', () => {
  const LIMIT = MAX_REQUEST_ERROR_MESSAGE_CHARS;
  const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
  // Each unit repeated to n − 1, n and n + 1 UTF-16 units (an emoji is two: its odd lengths end in half a pair).
  for (const [name, unit] of [
    ['ASCII', 'x'],
    ['CJK', '汉'],
    ['emoji', '😀'],
  ] as const) {
    it(`keeps ${name} of ${LIMIT - 1} and ${LIMIT} units whole and cuts ${LIMIT + 1}, pairs kept whole`, () => {
      const of = (n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
      expect(withinMessageLimit(of(LIMIT - 1))).toBe(of(LIMIT - 1));
      expect(withinMessageLimit(of(LIMIT))).toBe(of(LIMIT));
      const cut = withinMessageLimit(`${of(LIMIT)}!`);
      expect(cut.length).toBeLessThanOrEqual(LIMIT);
      expect(cut).toContain(' … ');
      expect(cut.endsWith('!')).toBe(true);
      if (unit.length === 2) expect(cut.slice(0, -1)).not.toMatch(LONE);
      // Shifted by one unit, the head's cut falls inside a pair instead of the tail's.
      if (unit.length === 2) expect(withinMessageLimit(`x${of(LIMIT)}`)).not.toMatch(LONE);
    });
  }

  it('keeps lone surrogates of the message as they were, never making a new one at the cut', () => {
    const lone = `\ud800${'a'.repeat(LIMIT)}\udc00`;
    const cut = withinMessageLimit(lone);
    expect(cut.length).toBeLessThanOrEqual(LIMIT);
    expect(cut.startsWith('\ud800a')).toBe(true);
    expect(cut.endsWith('a\udc00')).toBe(true);
    expect(withinMessageLimit(`\udc00${'b'.repeat(LIMIT - 1)}`)).toBe(`\udc00${'b'.repeat(LIMIT - 1)}`);
  });
});
