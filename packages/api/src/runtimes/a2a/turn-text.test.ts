import { asJobId, asMessageId, asTeamId, type TurnInput } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { turnText } from './turn-text.js';

const input = (over: Partial<TurnInput>): TurnInput => ({
  kind: 'request',
  jobId: asJobId('job_1'),
  teamId: asTeamId('team_1'),
  text: 'Check the numbers',
  memberName: 'Ada',
  requesterName: null,
  receipt: null,
  context: {},
  ...over,
});
const message = { id: asMessageId('message_1'), key: 'm1', fromName: 'Bob', text: 'Budget doubled' };

describe('turnText', () => {
  it('puts delivered team messages before the turn’s own text', () => {
    expect(turnText(input({ messages: [message] }))).toBe(
      'Team message m1 from Bob:\nBudget doubled\n\nCheck the numbers',
    );
    expect(turnText(input({}))).toBe('Check the numbers');
  });

  it('sends a message turn only its messages', () => {
    const text = turnText(
      input({ kind: 'message', text: 'Budget doubled', messages: [message, { ...message, key: 'm2' }] }),
    );
    expect(text).toBe('Team message m1 from Bob:\nBudget doubled\n\nTeam message m2 from Bob:\nBudget doubled');
  });
});
