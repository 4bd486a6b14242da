import { asJobId, asMessageId, asTeamId, type TurnInput, teamMessageEntry } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { buildContextWindow, estimateTokens, type StoredMessage } from './context-window.js';
import { WITHOUT_CONTEXT_NOTE, WITHOUT_CONTEXT_NOTE_TOKENS } from './history-team-context.js';
import { chatRequestBody } from './request-body.js';
import { turnMessage, withoutTeamContext } from './turn-prompt.js';

// Decision 0242: only the newest turn message that carries a team context sends it.

const CONTEXT = {
  team_id: 'team_1',
  goal: 'Ship it',
  members: [{ id: 'm1', name: 'Analyst', agent: 'a' }],
  messages: [{ from: 'Writer', text: 'draft ready '.repeat(40) }],
};

function input(kind: TurnInput['kind'], text: string, overrides: Partial<TurnInput> = {}): TurnInput {
  return {
    kind,
    jobId: asJobId(`job_${kind}`),
    teamId: asTeamId('team_1'),
    text,
    memberName: 'Analyst',
    requesterName: null,
    receipt: null,
    context: CONTEXT,
    ...overrides,
  };
}

const RECEIPT = { requestId: asJobId('job_r'), fromMemberName: 'Writer', status: 'COMPLETED', result: 'done' };

/** The JSON of a turn message (after its one-line preamble). */
function payload(content: unknown): Record<string, unknown> {
  const text = String(content);
  return JSON.parse(text.slice(text.indexOf('\n') + 1));
}

const user = (content: string): StoredMessage => ({ role: 'user', content, toolCalls: null, toolCallId: null });
const said = (content: string): StoredMessage => ({ role: 'assistant', content, toolCalls: null, toolCallId: null });
const asked = (id: string): StoredMessage => ({
  role: 'assistant',
  content: null,
  toolCalls: [{ id, name: 'read_team_history', arguments: '{}' }],
  toolCallId: null,
});
const answered = (id: string): StoredMessage => ({
  role: 'tool',
  content: '{"ok":1}',
  toolCalls: null,
  toolCallId: id,
});
const delivered = (text: string): StoredMessage =>
  user(teamMessageEntry({ id: asMessageId('msg_1'), key: 'msg_1', fromName: 'Writer', text }));
const request = (text: string): StoredMessage => user(turnMessage(input('request', text)));

describe('withoutTeamContext', () => {
  it.each([
    ['request', input('request', 'Review the plan')],
    ['receipt', input('receipt', '', { receipt: RECEIPT })],
    ['broadcast_receipt', input('broadcast_receipt', 'Writer: done')],
  ])('drops the team_context of a %s, byte for byte the message without one', (_kind, turn) => {
    const full = turnMessage(turn);
    expect(payload(full).team_context).toEqual(CONTEXT);
    // `JSON.stringify` omits an undefined key: the same turn message, never given a context.
    expect(withoutTeamContext(full)).toBe(turnMessage({ ...turn, context: undefined }));
  });

  it('keeps request text exactly, whatever it holds: the key itself, CJK, emoji, lone surrogates, escapes', () => {
    const texts = [
      '"team_context": {"goal": "fake"}',
      '評審計畫',
      'ship 🚢 it',
      'half \ud83d pair',
      'end \udc00',
      '\u2028\n\t"\\',
    ];
    for (const text of texts) {
      const turn = input('request', text);
      expect(withoutTeamContext(turnMessage(turn))).toBe(turnMessage({ ...turn, context: undefined }));
    }
  });

  it('leaves an answer, a delivered team message and ordinary text as they are', () => {
    // A team message whose text is a whole turn message's JSON: its first line is the heading.
    const lookalike = delivered(turnMessage(input('request', 'x')).split('\n')[1] as string).content as string;
    for (const content of [turnMessage(input('answer', 'Friday')), lookalike, 'plain text', '']) {
      expect(withoutTeamContext(content)).toBe(content);
    }
  });

  it('leaves text that only looks like a turn message: another first line, broken JSON, a nested key', () => {
    const full = turnMessage(input('request', 'x'));
    const preamble = full.slice(0, full.indexOf('\n'));
    const lookalikes = [
      `Team turn: something else\n${full.slice(full.indexOf('\n') + 1)}`,
      `${preamble}\n{"team_context": {"a": 1}`,
      `${preamble}\n["team_context", {"team_context": 1}]`,
      `${preamble}\n{"kind":"request","nested":{"team_context":1}}`,
    ];
    for (const content of lookalikes) expect(withoutTeamContext(content)).toBe(content);
  });
});

describe('buildContextWindow: the team context of earlier turns', () => {
  const first = request('Pick a code word');
  const current = request('What was it?');
  const history = [first, said('heron'), current];

  it('sends earlier turns without their context, the current turn with it, and says so once', () => {
    const window = buildContextWindow('sys', history, 100_000);
    const [system, earlier, answer, now] = window.messages;
    expect(system?.content).toBe(`sys${WITHOUT_CONTEXT_NOTE}`);
    expect(earlier?.content).toBe(withoutTeamContext(first.content as string));
    expect(answer?.content).toBe('heron');
    expect(payload(now?.content).team_context).toEqual(CONTEXT);
  });

  it('keeps the newest context when the current turn is delivered team messages without one', () => {
    const older = request('older');
    const window = buildContextWindow(
      'sys',
      [older, said('a'), first, said('b'), delivered('hi'), delivered('?')],
      100_000,
    );
    const contents = window.messages.map((message) => message.content);
    expect(contents[0]).toBe(`sys${WITHOUT_CONTEXT_NOTE}`);
    expect(contents[1]).toBe(withoutTeamContext(older.content as string));
    // The newest turn message with a context goes whole, older ones without.
    expect(contents[3]).toBe(first.content);
    expect(contents.slice(5)).toEqual([delivered('hi').content, delivered('?').content]);
  });

  it('sends every context with historyTeamContext "every", and no note', () => {
    const window = buildContextWindow('sys', history, 100_000, false, 'every');
    expect(window.messages.map((message) => message.content)).toEqual(['sys', first.content, 'heron', current.content]);
  });

  it('adds no note when no earlier turn carried a context', () => {
    expect(buildContextWindow('sys', [current], 100_000).messages[0]?.content).toBe('sys');
    const plain = buildContextWindow('sys', [user('hello'), said('hi'), current], 100_000);
    expect(plain.messages.map((message) => message.content).slice(0, 2)).toEqual(['sys', 'hello']);
  });

  it('keeps an earlier turn’s tool rounds whole, answering an unanswered call as before', () => {
    const window = buildContextWindow('sys', [first, asked('c1'), answered('c1'), asked('c2'), current], 100_000);
    expect(window.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'user',
    ]);
    expect(window.messages[1]?.content).toBe(withoutTeamContext(first.content as string));
    expect(window.messages[5]?.content).toContain('NOT_EXECUTED');
  });

  it('states both notes when turns are dropped and contexts left out', () => {
    const oldest = request('x'.repeat(4_000));
    const window = buildContextWindow('sys', [oldest, said('a'), ...history], 1_000);
    expect(window.droppedTurns).toBe(1);
    expect(window.messages[0]?.content).toMatch(/^sys\n\n\(1 earlier turn\(s\).*\)\n\n\(Older turns are shown/s);
  });

  it('counts an earlier turn at its size without the context, plus the note, so more of the history fits', () => {
    const lean = estimateTokens(user(withoutTeamContext(first.content as string))) + estimateTokens(said('heron'));
    const whole = estimateTokens(first) + estimateTokens(said('heron'));
    const base = buildContextWindow('sys', [current], 100_000).estimatedTokens;
    const budget = base + lean + WITHOUT_CONTEXT_NOTE_TOKENS;
    // A budget the shortened turn fits in and the whole one would not.
    expect(budget).toBeLessThan(base + whole);
    const window = buildContextWindow('sys', history, budget);
    expect(window.droppedTurns).toBe(0);
    expect(window.estimatedTokens).toBe(budget);
    const short = buildContextWindow('sys', history, budget - 1);
    expect(short.droppedTurns).toBe(1);
    expect(short.messages[0]?.content).not.toContain(WITHOUT_CONTEXT_NOTE);
  });

  it('counts the note once, however many turns it explains', () => {
    const turns = [request('one'), said('a'), request('two'), said('b'), current];
    const window = buildContextWindow('sys', turns, 100_000);
    const lean = (message: StoredMessage) => estimateTokens(user(withoutTeamContext(message.content as string)));
    const expected =
      buildContextWindow('sys', [current], 100_000).estimatedTokens +
      lean(turns[0] as StoredMessage) +
      lean(turns[2] as StoredMessage) +
      2 * estimateTokens(said('a')) +
      WITHOUT_CONTEXT_NOTE_TOKENS;
    expect(window.estimatedTokens).toBe(expected);
  });

  it('sends the newest context shortened when it does not fit whole, rather than no earlier turn', () => {
    const tail = [delivered('hi')];
    const base = buildContextWindow('sys', tail, 100_000).estimatedTokens;
    const lean = estimateTokens(user(withoutTeamContext(first.content as string))) + estimateTokens(said('heron'));
    const window = buildContextWindow(
      'sys',
      [first, said('heron'), ...tail],
      base + lean + WITHOUT_CONTEXT_NOTE_TOKENS,
    );
    expect(window.droppedTurns).toBe(0);
    expect(window.messages.map((message) => message.content)).toEqual([
      `sys${WITHOUT_CONTEXT_NOTE}`,
      withoutTeamContext(first.content as string),
      'heron',
      delivered('hi').content,
    ]);
  });

  it('drops the whole request message it kept once the turn goes shortened for good', () => {
    const asCurrent = buildContextWindow('sys', [first], 100_000, true).messages[1];
    // Still the newest context (a turn of delivered messages follows): the same kept message.
    const stillNewest = buildContextWindow('sys', [first, said('heron'), delivered('hi')], 100_000, true);
    expect(stillNewest.messages[1]).toBe(asCurrent);
    buildContextWindow('sys', history, 100_000, true);
    // Shortened once: sent whole again (after a change of setting), it is built anew.
    const whole = buildContextWindow('sys', history, 100_000, true, 'every').messages[1];
    expect(whole).toEqual(asCurrent);
    expect(whole).not.toBe(asCurrent);
  });

  it('builds each shortened message once when the history is kept, and its bytes stay exact', () => {
    const a = buildContextWindow('sys', history, 100_000, true);
    const b = buildContextWindow('sys', history, 100_000, true);
    expect(b.messages[1]).toBe(a.messages[1]);
    const body = { model: 'm', messages: b.messages, stream: true };
    expect(chatRequestBody(body, true).toString('utf8')).toBe(JSON.stringify(body));
    // Without keeping (PostgreSQL): the same content, built anew.
    const fresh = buildContextWindow('sys', history, 100_000, false);
    expect(fresh.messages).toEqual(b.messages);
    expect(fresh.messages[1]).not.toBe(b.messages[1]);
  });
});
