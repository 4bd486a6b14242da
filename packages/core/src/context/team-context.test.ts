import { describe, expect, it } from 'vitest';
import { makeTestJob } from '../jobs/make-test-job.js';
import { asAgentId, asConversationId, asJobId, asMemberId, asOwnerId, asRecordId, asTeamId } from '../model/ids.js';
import { JobKind } from '../model/job.js';
import type { RecordMessage } from '../model/record.js';
import type { Member, Team } from '../model/team.js';
import { utf8ByteLength } from '../text/text-measure.js';
import { buildTurnInput, fitContextMessages, recordToContextJson } from './team-context.js';

function record(seq: number, text = ''): RecordMessage {
  return {
    id: asRecordId(`record_${seq}`),
    teamId: asTeamId('team_1'),
    seq,
    kind: 'COMPLETED',
    jobId: asJobId(`job_${seq}`),
    memberId: asMemberId('member_1'),
    fromMemberId: null,
    text,
    truncated: false,
    createdAt: '2026-11-30T04:00:00.000Z',
  };
}

const jsonBytes = (records: readonly RecordMessage[]) =>
  utf8ByteLength(JSON.stringify(records.map(recordToContextJson)));

/** Eight records whose context JSON is exactly `total` bytes, the extra text made of `unit` (+ ASCII fill) in the oldest. */
function eightRecordsOf(total: number, unit: string): RecordMessage[] {
  const base = jsonBytes(Array.from({ length: 8 }, (_, i) => record(i + 1)));
  const room = total - base;
  // What one character costs inside the JSON text, escaping included (`"` becomes `\"`).
  const unitBytes = utf8ByteLength(JSON.stringify(unit)) - 2;
  const text = unit.repeat(Math.floor(room / unitBytes)) + 'a'.repeat(room % unitBytes);
  return [record(1, text), ...Array.from({ length: 7 }, (_, i) => record(i + 2))];
}

describe('fitContextMessages', () => {
  it('keeps only the newest 8 messages, oldest first', () => {
    const kept = fitContextMessages(Array.from({ length: 11 }, (_, i) => record(i + 1, 'x')));
    expect(kept.map((r) => r.seq)).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
  });

  for (const unit of ['a', '数', '😀', '"']) {
    it(`keeps 23,999 and 24,000 bytes of JSON and drops the oldest at 24,001 (text of ${unit})`, () => {
      for (const total of [23_999, 24_000]) {
        const records = eightRecordsOf(total, unit);
        expect(jsonBytes(records)).toBe(total);
        expect(fitContextMessages(records)).toHaveLength(8);
      }
      const over = eightRecordsOf(24_001, unit);
      expect(jsonBytes(over)).toBe(24_001);
      expect(fitContextMessages(over).map((r) => r.seq)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    });
  }

  it('drops as many of the oldest as it takes and honours custom limits', () => {
    const records = [record(1, 'a'.repeat(6_000)), record(2, 'b'.repeat(6_000)), record(3, 'c'.repeat(6_000))];
    expect(fitContextMessages(records, 8, 12_000).map((r) => r.seq)).toEqual([3]);
    expect(fitContextMessages(records, 2).map((r) => r.seq)).toEqual([2, 3]);
    expect(fitContextMessages(records, 8, 10)).toEqual([]);
  });
});

describe('buildTurnInput', () => {
  const team: Team = {
    id: asTeamId('team_1'),
    owner: asOwnerId('alice'),
    clientRequestId: 'c1',
    name: 'Launch',
    goal: 'Ship the report',
    status: 'READY',
    revision: 3,
    lastEventSeq: 3,
    createdAt: '2026-11-30T04:00:00.000Z',
    updatedAt: '2026-11-30T04:00:00.000Z',
  };
  const member = (n: number, name: string, agent: string): Member => ({
    id: asMemberId(`member_${n}`),
    teamId: team.id,
    position: n - 1,
    name,
    agentId: asAgentId(agent),
    conversationId: asConversationId(`conversation_${n}`),
    role: null,
    isLead: false,
    retiredAt: null,
  });
  const members = [
    { ...member(1, 'Research', 'researcher'), role: 'Finds sources', isLead: true },
    member(2, 'Writer', 'writer'),
  ];

  it('builds a request turn from a person with the bounded shared context as data', () => {
    const records = Array.from({ length: 10 }, (_, i) => record(i + 1, 'note'));
    const input = buildTurnInput({ job: makeTestJob(), team, members, recentRecords: records });
    expect(input).toMatchObject({ kind: 'request', jobId: 'job_1', teamId: 'team_1', text: 'Summarise the findings' });
    expect(input).toMatchObject({ memberName: 'Writer', memberRole: null, requesterName: null, receipt: null });
    expect(input.context).toEqual({
      team_id: 'team_1',
      goal: 'Ship the report',
      members: [
        { id: 'member_1', name: 'Research', agent: 'researcher', role: 'Finds sources', lead: true },
        { id: 'member_2', name: 'Writer', agent: 'writer', role: null, lead: false },
      ],
      messages: records.slice(2).map(recordToContextJson),
    });
  });

  it("carries the running member's role for its instructions", () => {
    const job = makeTestJob('QUEUED', { memberId: asMemberId('member_1') });
    expect(buildTurnInput({ job, team, members, recentRecords: [] })).toMatchObject({
      memberName: 'Research',
      memberRole: 'Finds sources',
    });
  });

  it('names the requesting member of a handoff', () => {
    const job = makeTestJob('QUEUED', {
      requester: { memberId: asMemberId('member_1'), conversationId: asConversationId('conversation_1') },
    });
    expect(buildTurnInput({ job, team, members, recentRecords: [] }).requesterName).toBe('Research');
  });

  it('turns a receipt into a receipt turn naming the member who did the work', () => {
    const text = JSON.stringify({
      request_id: 'job_7',
      from_member: 'member_2',
      status: 'COMPLETED',
      result: 'Draft ready',
    });
    const job = makeTestJob('QUEUED', {
      kind: JobKind.RECEIPT,
      memberId: asMemberId('member_1'),
      text,
      parentId: asJobId('job_7'),
    });
    const input = buildTurnInput({ job, team, members, recentRecords: [] });
    expect(input.kind).toBe('receipt');
    expect(input.memberName).toBe('Research');
    expect(input.receipt).toEqual({
      requestId: 'job_7',
      fromMemberName: 'Writer',
      status: 'COMPLETED',
      result: 'Draft ready',
    });
  });

  it('tolerates an unknown member by showing its id, and a person as the executor', () => {
    const text = JSON.stringify({
      request_id: 'job_7',
      from_member: 'member_9',
      status: 'FAILED',
      result: 'No agent.',
    });
    const job = makeTestJob('QUEUED', { kind: JobKind.RECEIPT, memberId: null, text });
    const input = buildTurnInput({ job, team, members, recentRecords: [] });
    expect(input.memberName).toBe('person');
    expect(input.receipt).toMatchObject({ fromMemberName: 'member_9', status: 'FAILED' });
  });

  it('still builds a receipt turn from malformed receipt text', () => {
    const job = makeTestJob('QUEUED', { kind: JobKind.RECEIPT, text: 'not json', parentId: asJobId('job_3') });
    const input = buildTurnInput({ job, team, members, recentRecords: [] });
    expect(input.receipt).toEqual({
      requestId: 'job_3',
      fromMemberName: 'unknown member',
      status: 'UNKNOWN',
      result: 'not json',
    });
  });
});
