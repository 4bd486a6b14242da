import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../budget/fit-to-budget.js';
import { teamContextJson } from '../context/team-context.js';
import { Limits } from '../limits/limits.js';
import { asAgentId, asConversationId, asJobId, asMemberId, asOwnerId, asRecordId, asTeamId } from '../model/ids.js';
import type { RecordMessage } from '../model/record.js';
import type { Member, Team } from '../model/team.js';

const team: Team = {
  id: asTeamId('team_1'),
  owner: asOwnerId('alice'),
  clientRequestId: 'c',
  name: 'T',
  // A goal that escapes to six bytes a character: ~12,000 bytes of JSON on its own.
  goal: '\u0001'.repeat(2_000),
  status: 'READY',
  revision: 1,
  lastEventSeq: 1,
  createdAt: '2026-11-30T04:00:00.000Z',
  updatedAt: '2026-11-30T04:00:00.000Z',
};

const members: Member[] = Array.from({ length: 8 }, (_, i) => ({
  id: asMemberId(`member_${i}`),
  teamId: team.id,
  position: i,
  name: `${'名'.repeat(40)}${i}`,
  agentId: asAgentId('researcher'),
  conversationId: asConversationId(`conversation_${i}`),
  // The longest role in JSON: no control characters are allowed, so `"` (two bytes escaped) is the worst.
  role: '"'.repeat(Limits.memberRole.maxChars),
  isLead: i === 0,
  retiredAt: null,
}));

const record = (seq: number): RecordMessage => ({
  id: asRecordId(`record_${seq}`),
  teamId: team.id,
  seq,
  kind: 'COMPLETED',
  jobId: asJobId(`job_${seq}`),
  memberId: asMemberId('member_1'),
  fromMemberId: null,
  text: `"${'x'.repeat(2_500)}"`,
  truncated: false,
  createdAt: '2026-11-30T04:00:00.000Z',
});

describe('read_team_context answer', () => {
  it('fits goal, roster and messages together in 24,000 bytes, dropping the oldest messages first', () => {
    const records = Array.from({ length: 8 }, (_, i) => record(i + 1));
    const answer = teamContextJson(team, members, records);
    expect(jsonBytes(answer)).toBeLessThanOrEqual(Limits.contextBytes);
    expect(answer.messages.length).toBeGreaterThan(0);
    expect(answer.messages.length).toBeLessThan(8);
    // The newest are kept, in order.
    expect(answer.messages.map((m) => m.id).at(-1)).toBe('record_8');
    const one = teamContextJson(team, members, [...records, record(9)].slice(-answer.messages.length - 1));
    expect(jsonBytes(one)).toBeLessThanOrEqual(Limits.contextBytes);
  });
});
