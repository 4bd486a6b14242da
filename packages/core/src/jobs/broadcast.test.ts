import { describe, expect, it } from 'vitest';
import { asMemberId } from '../model/ids.js';
import { JobPhase } from '../model/job.js';
import type { Member } from '../model/team.js';
import {
  BROADCAST_CUT_MARK,
  BROADCAST_RECEIPT_BYTES,
  broadcastHeadings,
  broadcastReceipt,
  broadcastReceiptText,
  isBroadcastRequest,
} from './broadcast.js';
import { makeTestJob } from './make-test-job.js';

const member = (n: number, role: string | null) =>
  ({ id: asMemberId(`member_${n}`), name: `M${n}`, role }) as unknown as Member;
const roster = [member(1, 'lead'), member(2, 'writer'), member(3, null)];
const requester = { memberId: asMemberId('member_1'), conversationId: 'conversation_1' as never };
const request = (n: number, phase: JobPhase, text: string, seq: number) =>
  makeTestJob(phase, {
    id: `job_${n}` as never,
    seq,
    memberId: asMemberId(`member_${n}`),
    clientKey: 'broadcast:b',
    requester,
    result: { text, truncated: false },
  });

describe('broadcast receipts', () => {
  it('orders sections by roster, not by finishing order, with role headings', () => {
    const text = broadcastReceiptText(
      [request(3, JobPhase.COMPLETED, 'c', 2), request(2, JobPhase.FAILED, 'w', 1)],
      roster,
    );
    expect(text).toBe('### M2 (writer)\nstatus: FAILED\nw\n\n### M3 (no role)\nstatus: COMPLETED\nc');
    expect(broadcastHeadings(text)).toEqual(['### M2 (writer)', '### M3 (no role)']);
  });

  it('cuts each result to its share and marks the cut', () => {
    const long = 'x'.repeat(BROADCAST_RECEIPT_BYTES);
    const text = broadcastReceiptText(
      [request(2, JobPhase.COMPLETED, long, 1), request(3, JobPhase.COMPLETED, 'short', 2)],
      roster,
    );
    expect(text).toContain(`${'x'.repeat(BROADCAST_RECEIPT_BYTES / 2)}${BROADCAST_CUT_MARK}`);
    expect(text.endsWith('status: COMPLETED\nshort')).toBe(true);
  });

  it('is due only once every request finished, to the broadcaster, in the first request’s chain', () => {
    const done = request(2, JobPhase.COMPLETED, 'a', 1);
    expect(broadcastReceipt([done, request(3, JobPhase.RUNNING, '', 2)], roster, 'now')).toBeNull();
    const receipt = broadcastReceipt([request(3, JobPhase.CANCELLED, '', 2), done], roster, 'now');
    expect(receipt).toMatchObject({
      kind: 'BROADCAST_RECEIPT',
      memberId: 'member_1',
      parentId: 'job_2',
      id: 'job_2_broadcast_receipt',
    });
    expect(isBroadcastRequest(done)).toBe(true);
    expect(isBroadcastRequest({ ...done, clientKey: 'b' })).toBe(false);
  });
});
