import {
  type CommittedRows,
  type EventSink,
  type Member,
  type MemberId,
  type TeamEvent,
  TeamEventKind,
  type TeamId,
} from '@agent-teams/core';

/** At most this many members are remembered; past it the oldest note is forgotten (a read replaces it). */
export const KNOWN_MEMBERS_MAX = 10_000;

/** The events that go with a write of a member's row: its insertion or its retirement. */
const MEMBER_WRITES: ReadonlySet<TeamEventKind> = new Set([TeamEventKind.MEMBER_SPAWNED, TeamEventKind.MEMBER_RETIRED]);

/**
 * True when `event` may tell of its team's deletion: a TEAM_CHANGED whose commit did not note the
 * team's row. Every logged write of a team notes the row (`CommittedRows.teams`); a deletion only
 * announces the event (its log is gone with it), and another server's (its tombstone) comes
 * without rows. Taking every such event for one costs at most rosters read back, never a stale note.
 */
function mayBeDeletion(event: TeamEvent, rows: CommittedRows | undefined): boolean {
  return event.kind === TeamEventKind.TEAM_CHANGED && rows?.teams.has(event.teamId) !== true;
}

/**
 * The members as the last local commit that read or wrote them under their team's lock noted them
 * (`CommittedRows.members`: a roster an enqueue checked, a retirement), so the live views of a
 * later commit need not read them back: a turn's completion logs a `MemberChanged` (its member's
 * derived status may follow the job) without having read its member (decision 0241).
 *
 * @remarks Exact only where every write of a member is a local commit published with its rows: a
 * server alone on its database (SQLite). A member's row is written when it is created (a team's
 * creation, a spawn) and when it is retired (`retired_at`, noted as stored); nothing else changes
 * it. A spawn or retirement event naming a member its commit did not note drops the note; a
 * deleted team's members are never shown (its views end at the team), and its deletion drops
 * their notes: a long-lived server whose teams come and go would otherwise keep them until
 * {@link KNOWN_MEMBERS_MAX} newer notes pushed them out.
 */
export class KnownMembers implements EventSink {
  readonly #members = new Map<MemberId, Member>();

  /** Takes in one local commit's events and the rows it noted. */
  published(events: readonly TeamEvent[], rows?: CommittedRows): void {
    if (rows !== undefined) for (const member of rows.members.values()) this.#note(member);
    for (const event of events) {
      if (mayBeDeletion(event, rows)) this.#forgetTeam(event.teamId);
      const memberId = event.memberId;
      if (memberId === null || !MEMBER_WRITES.has(event.kind) || rows?.members.has(memberId) === true) continue;
      this.#members.delete(memberId);
    }
  }

  /** The member as a local commit last noted it, if known. */
  get(memberId: MemberId): Member | undefined {
    return this.#members.get(memberId);
  }

  /** How many members are known (tests, bounds). */
  get size(): number {
    return this.#members.size;
  }

  /** Drops the notes of a team's members (a scan: deletions are rare, the map at most {@link KNOWN_MEMBERS_MAX}). */
  #forgetTeam(teamId: TeamId): void {
    for (const [id, member] of this.#members) if (member.teamId === teamId) this.#members.delete(id);
  }

  #note(member: Member): void {
    // Delete first: a note set again moves to the newest end of the map (oldest forgotten first).
    this.#members.delete(member.id);
    this.#members.set(member.id, member);
    if (this.#members.size > KNOWN_MEMBERS_MAX) this.#members.delete(this.#members.keys().next().value as MemberId);
  }
}
