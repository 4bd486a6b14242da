import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeTestJob } from '../jobs/make-test-job.js';
import {
  asAgentId,
  asConversationId,
  asJobId,
  asMemberId,
  asMessageId,
  asOwnerId,
  asRecordId,
  asTeamId,
} from '../model/ids.js';
import { JobKind } from '../model/job.js';
import type { RecordMessage } from '../model/record.js';
import type { Member, Team } from '../model/team.js';
import type { TeamMessage } from '../model/team-message.js';
import { utf8ByteLength } from '../text/text-measure.js';
import {
  buildTurnInput,
  fitContextMessages,
  fitTeamContext,
  memberToContextJson,
  recordToContextJson,
  teamContextJson,
} from './team-context.js';

// The fitting measures each record once and sums (an array's JSON is its items joined by commas).
// These properties hold it to the rule it replaced: drop the oldest and measure the whole array again.

/** The rule as first written: measure the whole array's JSON after each drop. */
function refitted(records: readonly RecordMessage[], maxMessages: number, maxBytes: number): RecordMessage[] {
  const kept = maxMessages > 0 ? records.slice(-maxMessages) : [];
  while (kept.length > 0 && utf8ByteLength(JSON.stringify(kept.map(recordToContextJson))) > maxBytes) kept.shift();
  return kept;
}

/** Text of any units: ASCII, escapes, CJK, emoji and lone surrogates (which JSON escapes). */
const text = fc
  .array(fc.constantFrom('a', '"', '\\', '\n', '数', '😀', '\uD83D', '\uDE00', '\u0000'), { maxLength: 40 })
  .chain((units) => fc.integer({ min: 1, max: 400 }).map((times) => units.join('').repeat(times)));

const records = fc.array(text, { maxLength: 11 }).map((texts) =>
  texts.map(
    (t, i): RecordMessage => ({
      id: asRecordId(`record_${i}`),
      teamId: asTeamId('team_1'),
      seq: i + 1,
      kind: 'COMPLETED',
      jobId: asJobId(`job_${i}`),
      memberId: asMemberId('member_1'),
      fromMemberId: null,
      text: t,
      truncated: i % 2 === 0,
      createdAt: '2026-11-30T04:00:00.000Z',
    }),
  ),
);

const team: Team = {
  id: asTeamId('team_1'),
  owner: asOwnerId('owner_1'),
  clientRequestId: 'c',
  name: 'T',
  goal: 'Ship it',
  status: 'READY',
  revision: 1,
  lastEventSeq: 0,
  createdAt: '2026-11-30T04:00:00.000Z',
  updatedAt: '2026-11-30T04:00:00.000Z',
} as Team;

const members = fc.integer({ min: 0, max: 8 }).map((n) =>
  Array.from(
    { length: n },
    (_, i): Member => ({
      id: asMemberId(`member_${i}`),
      teamId: team.id,
      position: i,
      name: `m${'数'.repeat(i * 20)}`,
      agentId: asAgentId('writer'),
      conversationId: asConversationId(`conv_${i}`),
      role: i % 2 === 0 ? null : 'reviewer',
      isLead: i === 0,
      retiredAt: null,
    }),
  ),
);

describe('fitting the team context, measured once per record', () => {
  it('keeps exactly what dropping and measuring again kept, at any limits', () => {
    fc.assert(
      fc.property(records, fc.integer({ min: -1, max: 12 }), fc.integer({ min: 0, max: 30_000 }), (all, max, bytes) => {
        expect(fitContextMessages(all, max, bytes)).toEqual(refitted(all, max, bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the team context the same records, and the JSON text stays within 24,000 bytes', () => {
    fc.assert(
      fc.property(records, members, (all, roster) => {
        const envelope = { team_id: team.id, goal: team.goal, members: roster.map(memberToContextJson), messages: [] };
        const room = 24_000 - utf8ByteLength(JSON.stringify(envelope)) + 2;
        const expected = refitted(all, 8, room);
        expect(fitTeamContext(team, roster, all)).toEqual(expected);
        const context = teamContextJson(team, roster, all);
        expect(context.messages).toEqual(expected.map(recordToContextJson));
        if (expected.length > 0) expect(utf8ByteLength(JSON.stringify(context))).toBeLessThanOrEqual(24_000);
      }),
      { numRuns: 300 },
    );
  });
});

describe('a frozen turn input', () => {
  // The store keeps the input it froze as the job's own (no JSON round trip: `jobStateUpdate`),
  // which is right only while the input is plain JSON data, exactly as a read gives it back.
  it('is plain JSON data: reading its JSON gives the very same value', () => {
    const kind = fc.constantFrom(JobKind.REQUEST, JobKind.RECEIPT, JobKind.MESSAGE, JobKind.BROADCAST_RECEIPT);
    const who = fc.constantFrom<string | null>(null, 'member_0', 'member_3', 'member_gone');
    const receiptText = fc.oneof(
      text,
      fc
        .record({
          request_id: fc.oneof(fc.string(), fc.integer()),
          from_member: who,
          status: fc.string(),
          result: text,
        })
        .map((p) => JSON.stringify(p)),
    );
    const mailbox = fc.array(fc.tuple(who, text), { maxLength: 3 });
    fc.assert(
      fc.property(
        kind,
        who,
        who,
        receiptText,
        records,
        members,
        mailbox,
        (k, memberId, requester, body, all, roster, sent) => {
          const job = makeTestJob('QUEUED', {
            kind: k,
            memberId: memberId === null ? null : asMemberId(memberId),
            requester: {
              memberId: requester === null ? null : asMemberId(requester),
              conversationId: requester === null ? null : asConversationId('conv_r'),
            },
            text: body,
            parentId: k === JobKind.RECEIPT ? asJobId('job_parent') : null,
          });
          const messages = sent.map(
            ([from, t], i) =>
              ({
                id: asMessageId(`message_${i}`),
                teamId: team.id,
                fromMemberId: from === null ? null : asMemberId(from),
                recipientIds: [],
                key: `key_${i}`,
                text: t,
                seq: i + 1,
                createdAt: '2026-11-30T04:00:00.000Z',
              }) as unknown as TeamMessage,
          );
          const input = buildTurnInput({ job, team, members: roster, recentRecords: all, mailbox: messages });
          expect(JSON.parse(JSON.stringify(input))).toStrictEqual(input);
        },
      ),
      { numRuns: 200 },
    );
  });
});
