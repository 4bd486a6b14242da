import { Limits } from '../limits/limits.js';
import type { JobId } from '../model/ids.js';
import { isTerminal, type Job, JobKind, JobPhase, statusOf, UNADMITTED } from '../model/job.js';
import type { Member } from '../model/team.js';
import { truncateUtf8 } from '../text/text-measure.js';
import type { NewJob } from './new-jobs.js';

/**
 * The client key prefix of a broadcast's requests: `broadcast:<request_id>`. A broadcast is the
 * set of REQUEST jobs of one requester conversation under one such key (one per recipient).
 */
export const BROADCAST_KEY_PREFIX = 'broadcast:';

/** The byte budget of all sections of a broadcast receipt together (each result is cut to its share). */
export const BROADCAST_RECEIPT_BYTES = Limits.taskText.maxBytes;

/** Marks a result cut to fit its share of the receipt. */
export const BROADCAST_CUT_MARK = '\n[cut to fit the broadcast receipt]';

/** True for a request sent by `team_broadcast` (its outcome goes into the one receipt, not a receipt of its own). */
export function isBroadcastRequest(job: Pick<Job, 'kind' | 'clientKey'>): boolean {
  return job.kind === JobKind.REQUEST && job.clientKey.startsWith(BROADCAST_KEY_PREFIX);
}

/** `### <name> (<role>)`, the heading of one member's section. */
export function broadcastHeading(member: Pick<Member, 'name' | 'role'>): string {
  return `### ${member.name} (${member.role ?? 'no role'})`;
}

/** The headings of a receipt's text, in order (what the scripted runtime answers with). */
export function broadcastHeadings(text: string): string[] {
  return text.split('\n').filter((line) => line.startsWith('### '));
}

/**
 * The receipt text: one section per recipient in roster order, its heading, its status and its
 * result, each result cut to an equal share of {@link BROADCAST_RECEIPT_BYTES} and marked when cut.
 */
export function broadcastReceiptText(requests: readonly Job[], roster: readonly Member[]): string {
  const ordered = roster.flatMap((member) =>
    requests.filter((job) => job.memberId === member.id).map((job) => ({ member, job })),
  );
  const share = Math.floor(BROADCAST_RECEIPT_BYTES / Math.max(1, ordered.length));
  return ordered
    .map(({ member, job }) => {
      const cut = truncateUtf8(job.result?.text ?? job.error ?? '', share);
      const result = cut.truncated ? `${cut.text}${BROADCAST_CUT_MARK}` : cut.text;
      return `${broadcastHeading(member)}\nstatus: ${statusOf(job.phase)}\n${result}`;
    })
    .join('\n\n');
}

/**
 * The one BROADCAST_RECEIPT job of a broadcast, once every one of its requests has finished; null
 * while any is unfinished. Delivered to the broadcaster's conversation, in the broadcast's chain.
 *
 * @remarks Its id is derived from the first request's, and its client key from the broadcast's,
 * so a second attempt (another finishing request, another server) finds it instead of adding one.
 */
export function broadcastReceipt(requests: readonly Job[], roster: readonly Member[], now: string): NewJob | null {
  const first = [...requests].sort((a, b) => a.seq - b.seq)[0];
  if (first === undefined || requests.some((job) => !isTerminal(job.phase))) return null;
  const { memberId, conversationId } = first.requester;
  if (memberId === null || conversationId === null) return null;
  return {
    id: `${first.id}_broadcast_receipt` as JobId,
    teamId: first.teamId,
    owner: first.owner,
    kind: JobKind.BROADCAST_RECEIPT,
    phase: JobPhase.QUEUED,
    memberId,
    conversationId,
    requester: { memberId: null, conversationId: null },
    parentId: first.id,
    rootId: first.rootId,
    clientKey: `receipt:${first.clientKey}`,
    text: broadcastReceiptText(requests, roster),
    createdAt: now,
    updatedAt: now,
    // Last, never first: see UNADMITTED.
    ...UNADMITTED,
  };
}
