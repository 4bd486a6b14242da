import { describe, expect, it } from 'vitest';
import {
  buildContextWindow,
  ELIDED,
  estimateTokens,
  LOST_CALLS_TEXT,
  NOT_EXECUTED,
  type StoredMessage,
  toTurns,
} from './context-window.js';

const user = (content: string): StoredMessage => ({ role: 'user', content, toolCalls: null, toolCallId: null });
const said = (content: string): StoredMessage => ({ role: 'assistant', content, toolCalls: null, toolCallId: null });
const calls = (...ids: string[]): StoredMessage => ({
  role: 'assistant',
  content: null,
  toolCalls: ids.map((id) => ({ id, name: 'read_team_context', arguments: '{}' })),
  toolCallId: null,
});
const result = (id: string, content = '{"ok":true}'): StoredMessage => ({
  role: 'tool',
  content,
  toolCalls: null,
  toolCallId: id,
});

describe('tool-call ids past 40 characters', () => {
  it('go out hashed, the same on the assistant’s call and on the result that answers it', () => {
    const long = `call_orun_job_${'0'.repeat(26)}_0_0`;
    const window = buildContextWindow('sys', [user('a'), calls(long, 'c2'), result(long), result('c2')], 10_000);
    const [, , assistant, answer, short] = window.messages;
    const sent = (assistant as { tool_calls: { id: string }[] }).tool_calls;
    expect(sent[0]?.id).not.toBe(long);
    expect(sent[0]?.id.length).toBeLessThanOrEqual(40);
    expect((answer as { tool_call_id: string }).tool_call_id).toBe(sent[0]?.id);
    // Ids within the limit go out as stored.
    expect(sent[1]?.id).toBe('c2');
    expect((short as { tool_call_id: string }).tool_call_id).toBe('c2');
  });
});

describe('toTurns', () => {
  it('answers tool calls an ended turn left open and drops orphan tool results', () => {
    const turns = toTurns([
      said('cut-off history'),
      user('a'),
      calls('c1', 'c2'),
      result('c1'),
      result('zz'),
      user('b'),
    ]);
    expect(turns).toHaveLength(2);
    expect(turns[0]).toEqual([user('a'), calls('c1', 'c2'), result('c1'), result('c2', NOT_EXECUTED)]);
    expect(turns[1]).toEqual([user('b')]);
  });

  it('sends an answer that lost its calls without them, and without the results that answered them', () => {
    const lost = (content: string | null): StoredMessage => ({
      role: 'assistant',
      content,
      toolCalls: null,
      toolCallId: null,
      toolCallsLost: true,
    });
    const turns = toTurns([user('a'), lost(null), result('c1'), said('done'), user('b'), lost(''), user('c')]);
    // Without text it says so; the answer after it goes in the same message, so that no two
    // messages of one role stand side by side.
    expect(turns).toEqual([
      [user('a'), said(`${LOST_CALLS_TEXT}\n\ndone`)],
      [user('b'), said(LOST_CALLS_TEXT)],
      [user('c')],
    ]);
    // With text, the answer still goes, without its calls, joined to the next answer.
    expect(toTurns([user('a'), lost('thinking'), result('c1'), said('done')])).toEqual([
      [user('a'), said('thinking\n\ndone')],
    ]);
    // The next answer keeps its own calls, and their results follow it.
    expect(toTurns([user('a'), lost('thinking'), result('c1'), calls('c2'), result('c2'), said('done')])).toEqual([
      [user('a'), { ...calls('c2'), content: 'thinking' }, result('c2'), said('done')],
    ]);
    // Several lost answers in a row, and no role twice in a row in any turn.
    const chained = toTurns([user('a'), lost(null), lost('second'), said('done'), user('b'), said('x'), said('y')]);
    expect(chained[0]).toEqual([user('a'), said(`${LOST_CALLS_TEXT}\n\nsecond\n\ndone`)]);
    for (const turn of chained) {
      for (let i = 1; i < turn.length; i += 1) {
        if (turn[i]?.role !== 'tool') expect(turn[i]?.role).not.toBe(turn[i - 1]?.role);
      }
    }
  });

  it('joins the same answers into the same message object call after call (kept request bytes)', () => {
    const lostAnswer: StoredMessage = {
      role: 'assistant',
      content: null,
      toolCalls: null,
      toolCallId: null,
      toolCallsLost: true,
    };
    const history = [user('a'), lostAnswer, said('done')];
    const first = toTurns(history)[0]?.[1];
    expect(first?.content).toBe(`${LOST_CALLS_TEXT}\n\ndone`);
    expect(toTurns(history)[0]?.[1]).toBe(first);
    // Another earlier answer (a new history read) gets a message of its own.
    expect(toTurns([user('a'), { ...lostAnswer }, history[2] as StoredMessage])[0]?.[1]).not.toBe(first);
  });
});

describe('buildContextWindow', () => {
  const history = [user('old '.repeat(400)), said('old answer'), user('recent'), said('recent answer'), user('now')];

  it('sends everything when it fits', () => {
    const window = buildContextWindow('sys', history, 100_000);
    expect(window.droppedTurns).toBe(0);
    expect(window.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(window.messages[0]?.content).toBe('sys');
  });

  it('drops whole older turns first, keeps the current turn and says so in the system prompt', () => {
    const window = buildContextWindow('sys', history, 60);
    expect(window.droppedTurns).toBe(1);
    expect(window.messages.map((m) => m.content)).toEqual([
      expect.stringContaining('1 earlier turn(s) of this conversation are not shown'),
      'recent',
      'recent answer',
      'now',
    ]);
    expect(window.estimatedTokens).toBeLessThanOrEqual(60);
  });

  it('never leaves a gap: a turn that does not fit ends the history', () => {
    const window = buildContextWindow(
      'sys',
      [user('small'), said('a'), user('big '.repeat(500)), said('b'), user('now')],
      80,
    );
    expect(window.droppedTurns).toBe(2);
    expect(window.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('elides older tool results of an oversized current turn, keeping the latest round', () => {
    const big = JSON.stringify({ text: 'x'.repeat(4_000) });
    const turn = [user('now'), calls('c1'), result('c1', big), calls('c2'), result('c2', big)];
    const window = buildContextWindow('sys', turn, 1_500);
    expect(window.elidedToolResults).toBe(1);
    const tools = window.messages.filter((m) => m.role === 'tool');
    expect(tools.map((m) => m.content)).toEqual([ELIDED, big]);
  });
});

describe('estimateTokens', () => {
  it('counts UTF-8 bytes as TextEncoder writes them: ASCII, CJK, emoji and lone surrogates', () => {
    const encoder = new TextEncoder();
    for (const text of ['abcd', '你好世界', '😀😀', '\ud800', 'x\udc00y', '']) {
      const bytes = encoder.encode(text).length;
      expect(estimateTokens({ role: 'user', content: text, toolCalls: null, toolCallId: null })).toBe(
        Math.ceil(bytes / 4) + 4,
      );
    }
    const call = { id: 'c', name: 'read_team_result', arguments: '{"job_id":"工作😀"}' };
    const callBytes = encoder.encode(call.name + call.arguments).length + 16;
    expect(estimateTokens({ role: 'assistant', content: null, toolCalls: [call], toolCallId: null })).toBe(
      Math.ceil(callBytes / 4) + 4,
    );
  });
});
