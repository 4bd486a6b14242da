import { Limits } from '../limits/limits.js';
import type { MemberId } from '../model/ids.js';
import { JobKind, type TurnInput } from '../model/job.js';
import type { RecordMessage } from '../model/record.js';
import type { Member, Team } from '../model/team.js';
import type { FreezeContext } from '../ports/team-store.js';
import { utf8ByteLength } from '../text/text-measure.js';

/** A shared-record message as agents see it (snake_case JSON, like every member tool answer). */
export interface RecordContextJson {
  readonly id: string;
  readonly kind: string;
  readonly job_id: string | null;
  readonly member_id: string | null;
  readonly from_member_id: string | null;
  readonly text: string;
  readonly truncated: boolean;
  readonly created_at: string;
}

/** A member as agents see it in the team context. */
export interface MemberContextJson {
  readonly id: string;
  readonly name: string;
  readonly agent: string;
  /** Null without a role. */
  readonly role: string | null;
  readonly lead: boolean;
}

/** The shared context of a team: the `read_team_context` answer and every frozen turn's `context`. */
export interface TeamContextJson {
  readonly team_id: string;
  readonly goal: string;
  readonly members: readonly MemberContextJson[];
  readonly messages: readonly RecordContextJson[];
}

/** Maps a member to its snake_case JSON form. */
export function memberToContextJson(m: Member): MemberContextJson {
  return { id: m.id, name: m.name, agent: m.agentId, role: m.role, lead: m.isLead };
}

/** Maps a record message to its snake_case JSON form. */
export function recordToContextJson(r: RecordMessage): RecordContextJson {
  return {
    id: r.id,
    kind: r.kind,
    job_id: r.jobId,
    member_id: r.memberId,
    from_member_id: r.fromMemberId,
    text: r.text,
    truncated: r.truncated,
    created_at: r.createdAt,
  };
}

/**
 * The newest `maxMessages` records (oldest first), dropping the oldest until the JSON array of
 * their context form fits in `maxBytes` UTF-8 bytes. Measured on the real JSON text, escaping
 * included, so what an agent receives is what was budgeted.
 */
export function fitContextMessages(
  records: readonly RecordMessage[],
  maxMessages: number = Limits.contextMessages,
  maxBytes: number = Limits.contextBytes,
): RecordMessage[] {
  const kept = maxMessages > 0 ? records.slice(-maxMessages) : [];
  return kept.slice(fittedFrom(kept.map(recordToContextJson), maxBytes));
}

/**
 * How many of the oldest `items` to drop so the JSON array of the rest fits in `maxBytes`.
 *
 * @remarks An array's JSON is `[`, its items' JSON joined by `,`, then `]`, so its length follows
 * from each item's, measured once: dropping the oldest one at a time and measuring the array again
 * each time cost about 230 µs for eight 2.9 KB records (every frozen turn of a busy team).
 */
function fittedFrom(items: readonly RecordContextJson[], maxBytes: number): number {
  const sizes = items.map((item) => utf8ByteLength(JSON.stringify(item)));
  // `[]`, every item, and a comma between each two.
  let total = 2 + sizes.reduce((sum, size) => sum + size, 0) + Math.max(0, items.length - 1);
  let drop = 0;
  while (drop < items.length && total > maxBytes) {
    total -= (sizes[drop] as number) + (drop < items.length - 1 ? 1 : 0);
    drop += 1;
  }
  return drop;
}

/** The envelope of a team's context: goal and roster, no messages yet. */
function contextEnvelope(team: Team, members: readonly Member[]): TeamContextJson {
  return { team_id: team.id, goal: team.goal, members: members.map(memberToContextJson), messages: [] };
}

/** The context messages of `records` that fit beside `envelope` in `Limits.contextBytes`. */
function fittedMessages(envelope: TeamContextJson, records: readonly RecordMessage[]): RecordContextJson[] {
  // `[]` of the empty envelope is replaced by the array, hence the + 2.
  const room = Limits.contextBytes - utf8ByteLength(JSON.stringify(envelope)) + 2;
  const kept = Limits.contextMessages > 0 ? records.slice(-Limits.contextMessages).map(recordToContextJson) : [];
  return kept.slice(fittedFrom(kept, room));
}

/**
 * The record messages of a team's shared context: the newest 8 (oldest first) that fit, with goal
 * and roster, in `Limits.contextBytes` of JSON (oldest dropped first). `Team.context`, the
 * `read_team_context` answer and every frozen turn's `context` all show exactly these.
 */
export function fitTeamContext(
  team: Team,
  members: readonly Member[],
  records: readonly RecordMessage[],
): RecordMessage[] {
  const kept = Limits.contextMessages > 0 ? records.slice(-Limits.contextMessages) : [];
  return kept.slice(kept.length - fittedMessages(contextEnvelope(team, members), kept).length);
}

/**
 * The shared context JSON of a team: the `read_team_context` answer and every frozen turn's
 * `context`. The whole JSON text is at most `Limits.contextBytes` (24,000) UTF-8 bytes.
 */
export function teamContextJson(
  team: Team,
  members: readonly Member[],
  records: readonly RecordMessage[],
): TeamContextJson {
  const envelope = contextEnvelope(team, members);
  return { ...envelope, messages: fittedMessages(envelope, records) };
}

/** The receipt payload a request's outcome is delivered with (see `finish-job.ts`). */
interface ReceiptPayload {
  readonly request_id?: unknown;
  readonly from_member?: unknown;
  readonly status?: unknown;
  readonly result?: unknown;
}

function parseReceipt(text: string): ReceiptPayload {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as ReceiptPayload) : {};
  } catch {
    return {};
  }
}

/**
 * The frozen input of an admitted job's turn: its text, who runs it and who asked (by name), the
 * delivered outcome for a receipt, the team's bounded shared context as data, and every team
 * message waiting in the member's mailbox (`ctx.mailbox`), which this turn delivers.
 *
 * @param context the team's context, when the caller already built it from this `ctx`'s team,
 * members and records (`teamContextJson`): the jobs of one team frozen together share one.
 */
export function buildTurnInput(
  ctx: FreezeContext,
  context: TeamContextJson = teamContextJson(ctx.team, ctx.members, ctx.recentRecords),
): TurnInput {
  const { job, team, members } = ctx;
  const nameOf = (id: MemberId | string | null): string | null =>
    id === null ? null : (members.find((m) => m.id === id)?.name ?? id);
  let receipt: TurnInput['receipt'] = null;
  if (job.kind === JobKind.RECEIPT) {
    // Receipts are written by the core itself; a malformed one still runs, showing its raw text.
    const payload = parseReceipt(job.text);
    const from = typeof payload.from_member === 'string' ? payload.from_member : null;
    receipt = {
      requestId: (typeof payload.request_id === 'string'
        ? payload.request_id
        : (job.parentId ?? '')) as TurnInput['jobId'],
      fromMemberName: nameOf(from) ?? 'unknown member',
      status: typeof payload.status === 'string' ? payload.status : 'UNKNOWN',
      result: typeof payload.result === 'string' ? payload.result : job.text,
    };
  }
  const messages = (ctx.mailbox ?? []).map((message) => ({
    id: message.id,
    key: message.key,
    fromName: message.fromMemberId === null ? 'person' : (nameOf(message.fromMemberId) ?? 'unknown member'),
    text: message.text,
  }));
  return {
    kind: turnKind(job.kind),
    jobId: job.id,
    teamId: team.id,
    text: job.text,
    memberName: nameOf(job.memberId) ?? 'person',
    memberRole: members.find((m) => m.id === job.memberId)?.role ?? null,
    memberIsLead: members.find((m) => m.id === job.memberId)?.isLead === true,
    requesterName: nameOf(job.requester.memberId),
    receipt,
    context,
    ...(messages.length === 0 ? {} : { messages }),
  };
}

function turnKind(kind: JobKind): TurnInput['kind'] {
  switch (kind) {
    case JobKind.RECEIPT:
      return 'receipt';
    case JobKind.MESSAGE:
      return 'message';
    case JobKind.BROADCAST_RECEIPT:
      return 'broadcast_receipt';
    default:
      return 'request';
  }
}
