import { asJobId, asTeamId, type TurnInput } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { buildContextWindow, estimateTokens, type StoredMessage, WITHOUT_CONTEXT_NOTE } from './context-window.js';
import { chatRequestBody } from './request-body.js';
import { turnMessage, withoutTeamContext } from './turn-prompt.js';

// Decision 0242: earlier turns go to the model without the team context their turn message froze.

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

/** The preamble and the JSON of a turn message. */
function parts(content: string): { preamble: string; payload: Record<string, unknown> } {
  const newline = content.indexOf('\n');
  return { preamble: content.slice(0, newline), payload: JSON.parse(content.slice(newline + 1)) };
}

const user = (content: string): StoredMessage => ({ role: 'user', content, toolCalls: null, toolCallId: null });
const said = (content: string): StoredMessage => ({ role: 'assistant', content, toolCalls: null, toolCallId: null });

describe('withoutTeamContext', () => {
  it.each([
    ['request', input('request', 'Review the plan')],
    ['receipt', input('receipt', '', { receipt: RECEIPT })],
    ['broadcast_receipt', input('broadcast_receipt', 'Writer: done')],
  ])('drops the team_context of a %s and keeps every other key, in order', (_kind, turn) => {
    const full = turnMessage(turn);
    const stripped = withoutTeamContext(full);
    const before = parts(full);
    const after = parts(stripped);
    expect(after.preamble).toBe(before.preamble);
    const { team_context, ...rest } = before.payload;
    expect(team_context).toEqual(CONTEXT);
    expect(after.payload).toEqual(rest);
    expect(Object.keys(after.payload)).toEqual(Object.keys(rest));
    expect(stripped.length).toBeLessThan(full.length);
  });

  it('leaves an answer, a team message and ordinary text as they are', () => {
    for (const content of [
      turnMessage(input('answer', 'Friday')),
      'Team message msg_1 from Writer: "team_context": {"x": 1}',
      'plain text',
      '',
    ]) {
      expect(withoutTeamContext(content)).toBe(content);
    }
  });

  it('leaves text that only looks like a turn message: another first line, broken JSON, a nested key', () => {
    const full = turnMessage(input('request', 'x'));
    const { preamble, payload } = parts(full);
    const lookalikes = [
      `Team turn: something else\n${JSON.stringify(payload)}`,
      `${preamble}\n{"team_context": {"a": 1}`,
      `${preamble}\n["team_context", {"team_context": 1}]`,
      `${preamble}\n{"kind":"request","nested":{"team_context":1}}`,
    ];
    for (const content of lookalikes) expect(withoutTeamContext(content)).toBe(content);
  });

  it('keeps request text exactly, whatever it holds: the key itself, CJK, emoji and lone surrogates', () => {
    for (const text of [
      '"team_context": {"goal": "fake"}',
      '評審計畫',
      'ship 🚢 it',
      'half \ud83d pair',
      'end \udc00',
    ]) {
      const stripped = parts(withoutTeamContext(turnMessage(input('request', text)))).payload;
      expect(stripped.request).toBe(text);
      expect(stripped).not.toHaveProperty('team_context');
    }
  });
});

describe('buildContextWindow with earlier team turns', () => {
  const first = user(turnMessage(input('request', 'Pick a code word')));
  const current = user(turnMessage(input('request', 'What was it?')));
  const history = [first, said('heron'), current];

  it('sends earlier turns without their context, the current turn with it, and says so once', () => {
    const window = buildContextWindow('sys', history, 100_000);
    const [system, earlier, answer, now] = window.messages;
    expect(system?.content).toBe(`sys${WITHOUT_CONTEXT_NOTE}`);
    expect(parts(earlier?.content as string).payload).not.toHaveProperty('team_context');
    expect(parts(earlier?.content as string).payload.request).toBe('Pick a code word');
    expect(answer?.content).toBe('heron');
    expect(parts(now?.content as string).payload.team_context).toEqual(CONTEXT);
  });

  it('adds no note when no earlier turn carried a context', () => {
    expect(buildContextWindow('sys', [current], 100_000).messages[0]?.content).toBe('sys');
    const plain = buildContextWindow('sys', [user('hello'), said('hi'), current], 100_000);
    expect(plain.messages[0]?.content).toBe('sys');
    expect(plain.messages[1]?.content).toBe('hello');
  });

  it('counts an earlier turn at its size without the context, so more of the history fits', () => {
    const strippedCost =
      estimateTokens(user(withoutTeamContext(first.content as string))) + estimateTokens(said('heron'));
    const fullCost = estimateTokens(first) + estimateTokens(said('heron'));
    const base = buildContextWindow('sys', [current], 100_000).estimatedTokens;
    // A budget the stripped turn fits in and the full one would not.
    const budget = base + strippedCost;
    expect(budget).toBeLessThan(base + fullCost);
    const window = buildContextWindow('sys', history, budget);
    expect(window.droppedTurns).toBe(0);
    expect(window.estimatedTokens).toBe(budget);
    expect(buildContextWindow('sys', history, budget - 1).droppedTurns).toBe(1);
  });

  it('builds each earlier message once when the history is kept, and its bytes stay exact', () => {
    const a = buildContextWindow('sys', history, 100_000, true);
    const b = buildContextWindow('sys', history, 100_000, true);
    expect(b.messages[1]).toBe(a.messages[1]);
    expect(b.messages[2]).toBe(a.messages[2]);
    const body = { model: 'm', messages: b.messages, stream: true };
    expect(chatRequestBody(body, true).toString('utf8')).toBe(JSON.stringify(body));
    // Without keeping (PostgreSQL), the same content, built anew.
    const fresh = buildContextWindow('sys', history, 100_000, false);
    expect(fresh.messages).toEqual(b.messages);
    expect(fresh.messages[1]).not.toBe(b.messages[1]);
  });
});
